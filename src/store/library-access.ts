/**
 * Who may reach each library on-premise (migration 0016): its access (`default` follows the
 * workspace default, `everyone`, `restricted`) and the users and single sign-on groups granted a
 * restricted one (migration 0032). Reads for requests go through `rules`, a few small queries that
 * servers cache per catalogue version.
 */
import type { Sql } from './sql.js'

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
  /** Single sign-on groups granted it, by name. */
  groups: string[]
}

/** The restricted libraries and who is granted each, as one request needs them. */
export interface AccessRules {
  /** Libraries closed to everyone but admins and their grantees: restricted, or following a restrictive default. */
  restricted: ReadonlySet<number>
  /** Per user, the libraries granted to them. */
  grants: ReadonlyMap<number, ReadonlySet<number>>
  /** Per single sign-on group, the libraries granted to its members. */
  groupGrants: ReadonlyMap<string, ReadonlySet<number>>
}

export interface LibraryAccessRepository {
  /** Every library with its access and grantees, ordered by ID. */
  list(): Promise<LibraryAccessEntry[]>
  /** Sets a library's access; its grants become `userIds` and `groups` when restricted, none otherwise. */
  set(libraryPk: number, access: LibraryAccess, userIds: readonly number[], groups: readonly string[]): Promise<void>
  rules(restrictByDefault: boolean): Promise<AccessRules>
  /** Whether the user is an admin, whose keys reach every library. */
  isAdmin(userId: number): Promise<boolean>
}

export function createLibraryAccessRepository(sql: Sql): LibraryAccessRepository {
  return {
    async list() {
      const users = new Map<number, Grantee[]>()
      const grantees = await sql.all<{ library_pk: number; user_pk: number; email: string }>(
        'SELECT g.library_pk, g.user_pk, u.email FROM library_grants g JOIN users u ON u.pk = g.user_pk ORDER BY u.email',
      )
      for (const row of grantees) users.set(row.library_pk, [...(users.get(row.library_pk) ?? []), { userId: row.user_pk, email: row.email }])
      const groups = new Map<number, string[]>()
      for (const row of await sql.all<{ library_pk: number; group_name: string }>('SELECT library_pk, group_name FROM library_group_grants ORDER BY group_name')) {
        groups.set(row.library_pk, [...(groups.get(row.library_pk) ?? []), row.group_name])
      }
      const libraries = await sql.all<{ pk: number; id: string; title: string; access: LibraryAccess }>('SELECT pk, id, title, access FROM libraries ORDER BY id')
      return libraries.map((l) => ({ libraryPk: l.pk, libraryId: l.id, title: l.title, access: l.access, users: users.get(l.pk) ?? [], groups: groups.get(l.pk) ?? [] }))
    },
    set: (libraryPk, access, userIds, groups) =>
      sql.transaction(async () => {
        await sql.run('UPDATE libraries SET access = ? WHERE pk = ?', [access, libraryPk])
        await sql.run('DELETE FROM library_grants WHERE library_pk = ?', [libraryPk])
        await sql.run('DELETE FROM library_group_grants WHERE library_pk = ?', [libraryPk])
        if (access !== 'restricted') return
        for (const userId of new Set(userIds)) await sql.run('INSERT INTO library_grants (library_pk, user_pk) VALUES (?, ?)', [libraryPk, userId])
        for (const group of new Set(groups)) await sql.run('INSERT INTO library_group_grants (library_pk, group_name) VALUES (?, ?)', [libraryPk, group])
      }),
    async rules(restrictByDefault) {
      const byUser = new Map<number, Set<number>>()
      for (const row of await sql.all<{ library_pk: number; user_pk: number }>('SELECT library_pk, user_pk FROM library_grants')) {
        byUser.set(row.user_pk, (byUser.get(row.user_pk) ?? new Set()).add(row.library_pk))
      }
      const byGroup = new Map<string, Set<number>>()
      for (const row of await sql.all<{ library_pk: number; group_name: string }>('SELECT library_pk, group_name FROM library_group_grants')) {
        byGroup.set(row.group_name, (byGroup.get(row.group_name) ?? new Set()).add(row.library_pk))
      }
      const restrictedAccess = restrictByDefault ? ['restricted', 'default'] : ['restricted']
      const restricted = await sql.all<{ pk: number }>(`SELECT pk FROM libraries WHERE access IN (${restrictedAccess.map(() => '?').join(', ')})`, restrictedAccess)
      return { restricted: new Set(restricted.map((row) => row.pk)), grants: byUser, groupGrants: byGroup }
    },
    isAdmin: async (userId) => (await sql.get<{ role: string }>('SELECT role FROM users WHERE pk = ?', [userId]))?.role === 'admin',
  }
}
