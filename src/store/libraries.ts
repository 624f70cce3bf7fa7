/**
 * Libraries, their versions and redirects. A library's processing state lives on its versions;
 * the library's own state is that of its default version (tag '').
 */
import { LecternError } from '../errors.js'
import { nowIso } from './db.js'
import type { Sql } from './sql.js'

export type LibraryState = 'initial' | 'processing' | 'finalized' | 'error'

export interface Library {
  pk: number
  id: string
  title: string
  description: string
  /** What the docs are read from: github, gitlab, bitbucket, git, openapi, llmstxt, website, confluence, notion, import (column source_type). */
  sourceKind: string
  sourceUrl: string
  branch: string | null
  trustScore: number
  isPrivate: boolean
  isImported: boolean
  /** The teamspace a private library belongs to (cloud mode); null for the install's own libraries. */
  teamPk: number | null
  rules: string[]
  options: Record<string, unknown>
  createdAt: string
  updatedAt: string
}

export interface LibraryVersion {
  pk: number
  libraryPk: number
  /** '' for the default branch. */
  tag: string
  title: string
  state: LibraryState
  errorCode: string | null
  errorMessage: string | null
  commitSha: string | null
  currentSet: number | null
  totalTokens: number
  totalSnippets: number
  updatedAt: string
}

export interface NewLibrary {
  id: string
  title: string
  description?: string
  sourceKind: string
  sourceUrl: string
  branch?: string | null
  isPrivate?: boolean
  isImported?: boolean
  teamPk?: number | null
  options?: Record<string, unknown>
}

export type LibraryUpdate = Partial<Pick<Library, 'title' | 'description' | 'branch' | 'rules' | 'options' | 'sourceUrl' | 'isPrivate'>>

interface LibraryRow {
  pk: number
  id: string
  title: string
  description: string
  source_type: string
  source_url: string
  branch: string | null
  trust_score: number
  is_private: number
  is_imported: number
  team_pk: number | null
  rules: string
  options: string
  created_at: string
  updated_at: string
}

interface VersionRow {
  pk: number
  library_pk: number
  tag: string
  title: string
  state: LibraryState
  error_code: string | null
  error_message: string | null
  commit_sha: string | null
  current_set: number | null
  total_tokens: number
  total_snippets: number
  updated_at: string
}

const toLibrary = (r: LibraryRow): Library => ({
  pk: r.pk,
  id: r.id,
  title: r.title,
  description: r.description,
  sourceKind: r.source_type,
  sourceUrl: r.source_url,
  branch: r.branch,
  trustScore: r.trust_score,
  isPrivate: r.is_private === 1,
  isImported: r.is_imported === 1,
  teamPk: r.team_pk,
  rules: JSON.parse(r.rules) as string[],
  options: JSON.parse(r.options) as Record<string, unknown>,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
})

const toVersion = (r: VersionRow): LibraryVersion => ({
  pk: r.pk,
  libraryPk: r.library_pk,
  tag: r.tag,
  title: r.title,
  state: r.state,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  commitSha: r.commit_sha,
  currentSet: r.current_set,
  totalTokens: r.total_tokens,
  totalSnippets: r.total_snippets,
  updatedAt: r.updated_at,
})

export interface LibrariesRepository {
  byId(id: string): Promise<Library | undefined>
  byPk(pk: number): Promise<Library | undefined>
  list(): Promise<Library[]>
  /** Creates the library and its default version in state `initial`. */
  create(input: NewLibrary): Promise<{ library: Library; version: LibraryVersion }>
  update(pk: number, changes: LibraryUpdate): Promise<Library>
  /** Where an old ID now points, following chains of renames; undefined when not redirected. */
  redirectOf(id: string): Promise<string | undefined>
  rename(fromId: string, toId: string): Promise<Library>
  /** Deletes the library with its versions, sets, snippets and jobs; returns the set pks it had. */
  remove(pk: number): Promise<number[]>
  /** Deletes one version with its sets, snippets and jobs; returns the set pks it had. */
  removeVersion(versionPk: number): Promise<number[]>
  versions(libraryPk: number): Promise<LibraryVersion[]>
  version(libraryPk: number, tag: string): Promise<LibraryVersion | undefined>
  versionByPk(pk: number): Promise<LibraryVersion | undefined>
  ensureVersion(libraryPk: number, tag: string, title?: string): Promise<LibraryVersion>
  setVersionState(versionPk: number, state: LibraryState, error?: { code: string; message: string }): Promise<void>
  /** Marks a library as imported (spec 3: refresh is refused for it), with the catalogue fields its import carried. */
  markImported(pk: number, fields: Pick<Library, 'title' | 'description' | 'sourceKind' | 'sourceUrl' | 'branch'>): Promise<void>
}

export function createLibrariesRepository(sql: Sql): LibrariesRepository {
  const byId = (id: string) => sql.get<LibraryRow>('SELECT * FROM libraries WHERE id = ?', [id])
  const byPk = (pk: number) => sql.get<LibraryRow>('SELECT * FROM libraries WHERE pk = ?', [pk])
  const versionOf = (libraryPk: number, tag: string) => sql.get<VersionRow>('SELECT * FROM library_versions WHERE library_pk = ? AND tag = ?', [libraryPk, tag])
  const versionByPk = (pk: number) => sql.get<VersionRow>('SELECT * FROM library_versions WHERE pk = ?', [pk])
  const insertVersion = async (libraryPk: number, tag: string, title: string) =>
    (await sql.get<VersionRow>(`INSERT INTO library_versions (library_pk, tag, title, state, updated_at) VALUES (?, ?, ?, 'initial', ?) RETURNING *`, [libraryPk, tag, title, nowIso()]))!
  const dropRedirect = (id: string) => sql.run('DELETE FROM redirects WHERE from_id = ?', [id])
  /** The pks of the sets under `where` (a condition on the version `v`), read before the rows go. */
  const setsWhere = async (where: string, pk: number) =>
    (await sql.all<{ pk: number }>(`SELECT s.pk FROM snippet_sets s JOIN library_versions v ON v.pk = s.version_pk WHERE ${where}`, [pk])).map((r) => r.pk)

  return {
    async byId(id) {
      const row = await byId(id)
      return row && toLibrary(row)
    },
    async byPk(pk) {
      const row = await byPk(pk)
      return row && toLibrary(row)
    },
    list: async () => (await sql.all<LibraryRow>('SELECT * FROM libraries ORDER BY id')).map(toLibrary),
    create: (input) =>
      sql.transaction(async () => {
        if (await byId(input.id)) throw new LecternError('library_exists', `Library ${input.id} already exists.`)
        const now = nowIso()
        const library = (await sql.get<LibraryRow>(
          `INSERT INTO libraries (id, title, description, source_type, source_url, branch, is_private, is_imported, team_pk, options, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
          [
            input.id,
            input.title,
            input.description ?? '',
            input.sourceKind,
            input.sourceUrl,
            input.branch ?? null,
            input.isPrivate ? 1 : 0,
            input.isImported ? 1 : 0,
            input.teamPk ?? null,
            JSON.stringify(input.options ?? {}),
            now,
            now,
          ],
        ))!
        // A new library takes its ID back from any redirect that pointed elsewhere.
        await dropRedirect(input.id)
        return { library: toLibrary(library), version: toVersion(await insertVersion(library.pk, '', '')) }
      }),
    // Read and written in one transaction: the fields not changed are written back as they are.
    update: (pk, changes) =>
      sql.transaction(async () => {
        const current = await byPk(pk)
        if (!current) throw new LecternError('library_not_found', `No library with pk ${pk}.`)
        const next = { ...toLibrary(current), ...changes }
        const row = await sql.get<LibraryRow>(
          'UPDATE libraries SET title = ?, description = ?, branch = ?, rules = ?, options = ?, source_url = ?, is_private = ?, updated_at = ? WHERE pk = ? RETURNING *',
          [next.title, next.description, next.branch, JSON.stringify(next.rules), JSON.stringify(next.options), next.sourceUrl, next.isPrivate ? 1 : 0, nowIso(), pk],
        )
        return toLibrary(row!)
      }),
    async redirectOf(id) {
      let target: string | undefined
      let current = id
      // Renames form chains (a -> b -> c); a bound stops a corrupt cycle from hanging a request.
      for (let hops = 0; hops < 16; hops++) {
        const row = await sql.get<{ to_id: string }>('SELECT to_id FROM redirects WHERE from_id = ?', [current])
        if (!row) break
        target = row.to_id
        current = row.to_id
      }
      return target
    },
    rename: (fromId, toId) =>
      sql.transaction(async () => {
        const row = await byId(fromId)
        if (!row) throw new LecternError('library_not_found', `No library ${fromId}.`)
        if (fromId === toId) throw new LecternError('validation_error', 'The new ID is the same as the old one.')
        if (await byId(toId)) throw new LecternError('library_exists', `Library ${toId} already exists.`)
        const renamed = await sql.get<LibraryRow>('UPDATE libraries SET id = ?, updated_at = ? WHERE pk = ? RETURNING *', [toId, nowIso(), row.pk])
        await dropRedirect(toId)
        await sql.run('UPDATE redirects SET to_id = ? WHERE to_id = ?', [toId, fromId])
        await sql.run(
          `INSERT INTO redirects (from_id, to_id, created_at) VALUES (?, ?, ?)
           ON CONFLICT (from_id) DO UPDATE SET to_id = excluded.to_id, created_at = excluded.created_at`,
          [fromId, toId, nowIso()],
        )
        return toLibrary(renamed!)
      }),
    async remove(pk) {
      const sets = await setsWhere('v.library_pk = ?', pk)
      await sql.run('DELETE FROM libraries WHERE pk = ?', [pk])
      return sets
    },
    async removeVersion(versionPk) {
      const sets = await setsWhere('v.pk = ?', versionPk)
      await sql.run('DELETE FROM library_versions WHERE pk = ?', [versionPk])
      return sets
    },
    versions: async (libraryPk) =>
      (await sql.all<VersionRow>(`SELECT * FROM library_versions WHERE library_pk = ? ORDER BY tag = '' DESC, updated_at DESC`, [libraryPk])).map(toVersion),
    async version(libraryPk, tag) {
      const row = await versionOf(libraryPk, tag)
      return row && toVersion(row)
    },
    async versionByPk(pk) {
      const row = await versionByPk(pk)
      return row && toVersion(row)
    },
    ensureVersion: (libraryPk, tag, title = '') =>
      sql.transaction(async () => {
        const existing = await versionOf(libraryPk, tag)
        return toVersion(existing ?? (await insertVersion(libraryPk, tag, title)))
      }),
    async setVersionState(versionPk, state, error) {
      await sql.run('UPDATE library_versions SET state = ?, error_code = ?, error_message = ?, updated_at = ? WHERE pk = ?', [
        state,
        error?.code ?? null,
        error?.message ?? null,
        nowIso(),
        versionPk,
      ])
    },
    async markImported(pk, fields) {
      await sql.run(
        'UPDATE libraries SET is_imported = TRUE, title = ?, description = ?, source_type = ?, source_url = ?, branch = ?, updated_at = ? WHERE pk = ?',
        [fields.title, fields.description, fields.sourceKind, fields.sourceUrl, fields.branch, nowIso(), pk],
      )
    },
  }
}
