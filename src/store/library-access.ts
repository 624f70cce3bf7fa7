/**
 * Who may reach each library on-premise (migration 0016): its access (`default` follows the
 * workspace default, `everyone`, `restricted`) and the users granted a restricted one. Reads for
 * requests go through `rules`, two small queries that servers cache per catalogue version.
 */
import type { Db } from './db.js'

export const LIBRARY_ACCESS = ['default', 'everyone', 'restricted'] as const
export type LibraryAccess = (typeof LIBRARY_ACCESS)[number]

export interface Grantee {
  userId: number
  email: string
}

export interface LibraryAccessEntry {
  libraryPk: number
  libraryId: string
  title: string
  access: LibraryAccess
  users: Grantee[]
}

/** The restricted libraries and who is granted each, as one request needs them. */
export interface AccessRules {
  /** Libraries closed to everyone but admins and their grantees: restricted, or following a restrictive default. */
  restricted: ReadonlySet<number>
  /** Per user, the libraries granted to them. */
  grants: ReadonlyMap<number, ReadonlySet<number>>
}

export interface LibraryAccessRepository {
  /** Every library with its access and grantees, ordered by ID. */
  list(): LibraryAccessEntry[]
  /** Sets a library's access; its grants become `userIds` when restricted, none otherwise. */
  set(libraryPk: number, access: LibraryAccess, userIds: readonly number[]): void
  rules(restrictByDefault: boolean): AccessRules
  /** Whether the user is an admin, whose keys reach every library. */
  isAdmin(userId: number): boolean
}

export function createLibraryAccessRepository(db: Db): LibraryAccessRepository {
  const libraries = db.prepare<[], { pk: number; id: string; title: string; access: LibraryAccess }>('SELECT pk, id, title, access FROM libraries ORDER BY id')
  const grantees = db.prepare<[], { library_pk: number; user_pk: number; email: string }>(
    'SELECT g.library_pk, g.user_pk, u.email FROM library_grants g JOIN users u ON u.pk = g.user_pk ORDER BY u.email',
  )
  const restricted = db.prepare<[number], number>(`SELECT pk FROM libraries WHERE access = 'restricted' OR (access = 'default' AND ?)`).pluck()
  const grants = db.prepare<[], { library_pk: number; user_pk: number }>('SELECT library_pk, user_pk FROM library_grants')
  const setAccess = db.prepare('UPDATE libraries SET access = ? WHERE pk = ?')
  const clearGrants = db.prepare('DELETE FROM library_grants WHERE library_pk = ?')
  const grant = db.prepare('INSERT INTO library_grants (library_pk, user_pk) VALUES (?, ?)')
  const role = db.prepare<[number], string>('SELECT role FROM users WHERE pk = ?').pluck()

  return {
    list() {
      const users = new Map<number, Grantee[]>()
      for (const row of grantees.all()) users.set(row.library_pk, [...(users.get(row.library_pk) ?? []), { userId: row.user_pk, email: row.email }])
      return libraries.all().map((l) => ({ libraryPk: l.pk, libraryId: l.id, title: l.title, access: l.access, users: users.get(l.pk) ?? [] }))
    },
    set: db.transaction((libraryPk: number, access: LibraryAccess, userIds: readonly number[]) => {
      setAccess.run(access, libraryPk)
      clearGrants.run(libraryPk)
      if (access === 'restricted') for (const userId of new Set(userIds)) grant.run(libraryPk, userId)
    }),
    rules(restrictByDefault) {
      const byUser = new Map<number, Set<number>>()
      for (const row of grants.all()) byUser.set(row.user_pk, (byUser.get(row.user_pk) ?? new Set()).add(row.library_pk))
      return { restricted: new Set(restricted.all(restrictByDefault ? 1 : 0)), grants: byUser }
    },
    isAdmin: (userId) => role.get(userId) === 'admin',
  }
}
