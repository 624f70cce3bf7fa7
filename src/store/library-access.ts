/**
 * Who may reach each library on-premise (migration 0016): its access (`default` follows the
 * namespace rule that governs it or else the workspace default, `everyone`, `restricted`) and the
 * users and single sign-on groups granted a restricted one (migration 0032); the namespace rules
 * (migration 0033), with access and grantees of their own. Reads for requests go through `rules`,
 * a few small queries that servers cache per catalogue version.
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

/** A namespace's rule: the access and grantees of every library under it that has no rule of its own. */
export interface NamespaceRule {
  namespace: string
  access: Exclude<LibraryAccess, 'default'>
  users: Grantee[]
  groups: string[]
}

/**
 * What decides who reaches which library, as requests need it (src/library/visibility.ts applies
 * the namespace rules to it): the libraries that are not open by a rule of their own, and grants.
 */
export interface AccessFacts {
  /** Libraries restricted, or without a rule of their own (`default`). */
  libraries: Array<{ pk: number; id: string; access: Exclude<LibraryAccess, 'everyone'> }>
  /** Per user, the libraries granted to them by a rule of their own. */
  grants: ReadonlyMap<number, ReadonlySet<number>>
  /** Per single sign-on group, the libraries granted to its members by a rule of their own. */
  groupGrants: ReadonlyMap<string, ReadonlySet<number>>
  namespaces: NamespaceRule[]
}

export interface LibraryAccessRepository {
  /** Every library with its access and grantees, ordered by ID. */
  list(): Promise<LibraryAccessEntry[]>
  /** Sets a library's access; its grants become `userIds` and `groups` when restricted, none otherwise. */
  set(libraryPk: number, access: LibraryAccess, userIds: readonly number[], groups: readonly string[]): Promise<void>
  /** Every namespace rule, ordered by namespace. */
  namespaces(): Promise<NamespaceRule[]>
  /** Sets a namespace's rule (`default` removes it); its grants become `userIds` and `groups` when restricted. */
  setNamespace(namespace: string, access: LibraryAccess, userIds: readonly number[], groups: readonly string[]): Promise<void>
  facts(): Promise<AccessFacts>
  /** Whether the user is an admin, whose keys reach every library. */
  isAdmin(userId: number): Promise<boolean>
}

export function createLibraryAccessRepository(sql: Sql): LibraryAccessRepository {
  const repository: LibraryAccessRepository = {
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
    async namespaces() {
      const rules = await sql.all<{ namespace: string; access: NamespaceRule['access'] }>('SELECT namespace, access FROM namespace_rules ORDER BY namespace')
      const users = await sql.all<{ namespace: string; user_pk: number; email: string }>(
        'SELECT g.namespace, g.user_pk, u.email FROM namespace_grants g JOIN users u ON u.pk = g.user_pk ORDER BY u.email',
      )
      const groups = await sql.all<{ namespace: string; group_name: string }>('SELECT namespace, group_name FROM namespace_group_grants ORDER BY group_name')
      return rules.map((rule) => ({
        ...rule,
        users: users.filter((row) => row.namespace === rule.namespace).map((row) => ({ userId: row.user_pk, email: row.email })),
        groups: groups.filter((row) => row.namespace === rule.namespace).map((row) => row.group_name),
      }))
    },
    setNamespace: (namespace, access, userIds, groups) =>
      sql.transaction(async () => {
        await sql.run('DELETE FROM namespace_rules WHERE namespace = ?', [namespace])
        if (access === 'default') return
        await sql.run('INSERT INTO namespace_rules (namespace, access) VALUES (?, ?)', [namespace, access])
        if (access !== 'restricted') return
        for (const userId of new Set(userIds)) await sql.run('INSERT INTO namespace_grants (namespace, user_pk) VALUES (?, ?)', [namespace, userId])
        for (const group of new Set(groups)) await sql.run('INSERT INTO namespace_group_grants (namespace, group_name) VALUES (?, ?)', [namespace, group])
      }),
    async facts() {
      const grants = new Map<number, Set<number>>()
      for (const row of await sql.all<{ library_pk: number; user_pk: number }>('SELECT library_pk, user_pk FROM library_grants')) {
        grants.set(row.user_pk, (grants.get(row.user_pk) ?? new Set()).add(row.library_pk))
      }
      const groupGrants = new Map<string, Set<number>>()
      for (const row of await sql.all<{ library_pk: number; group_name: string }>('SELECT library_pk, group_name FROM library_group_grants')) {
        groupGrants.set(row.group_name, (groupGrants.get(row.group_name) ?? new Set()).add(row.library_pk))
      }
      const libraries = await sql.all<AccessFacts['libraries'][number]>("SELECT pk, id, access FROM libraries WHERE access <> 'everyone'")
      return { libraries, grants, groupGrants, namespaces: await repository.namespaces() }
    },
    isAdmin: async (userId) => (await sql.get<{ role: string }>('SELECT role FROM users WHERE pk = ?', [userId]))?.role === 'admin',
  }
  return repository
}
