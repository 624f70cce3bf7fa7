/**
 * Libraries, their versions and redirects. A library's processing state lives on its versions;
 * the library's own state is that of its default version (tag '').
 */
import { LecternError } from '../errors.js'
import type { Db } from './db.js'
import { nowIso } from './db.js'

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
  byId(id: string): Library | undefined
  byPk(pk: number): Library | undefined
  list(): Library[]
  /** Creates the library and its default version in state `initial`. */
  create(input: NewLibrary): { library: Library; version: LibraryVersion }
  update(pk: number, changes: LibraryUpdate): Library
  /** Where an old ID now points, following chains of renames; undefined when not redirected. */
  redirectOf(id: string): string | undefined
  rename(fromId: string, toId: string): Library
  /** Deletes the library with its versions, sets, snippets and jobs; returns the set pks it had. */
  remove(pk: number): number[]
  /** Deletes one version with its sets, snippets and jobs; returns the set pks it had. */
  removeVersion(versionPk: number): number[]
  versions(libraryPk: number): LibraryVersion[]
  version(libraryPk: number, tag: string): LibraryVersion | undefined
  versionByPk(pk: number): LibraryVersion | undefined
  ensureVersion(libraryPk: number, tag: string, title?: string): LibraryVersion
  setVersionState(versionPk: number, state: LibraryState, error?: { code: string; message: string }): void
  /** Marks a library as imported (spec 3: refresh is refused for it), with the catalogue fields its import carried. */
  markImported(pk: number, fields: Pick<Library, 'title' | 'description' | 'sourceKind' | 'sourceUrl' | 'branch'>): void
}

export function createLibrariesRepository(db: Db): LibrariesRepository {
  const byId = db.prepare<[string], LibraryRow>('SELECT * FROM libraries WHERE id = ?')
  const byPk = db.prepare<[number], LibraryRow>('SELECT * FROM libraries WHERE pk = ?')
  const all = db.prepare<[], LibraryRow>('SELECT * FROM libraries ORDER BY id')
  const insertLibrary = db.prepare(
    `INSERT INTO libraries (id, title, description, source_type, source_url, branch, is_private, is_imported, team_pk, options, created_at, updated_at)
     VALUES (@id, @title, @description, @sourceKind, @sourceUrl, @branch, @isPrivate, @isImported, @teamPk, @options, @now, @now)`,
  )
  const insertVersion = db.prepare(
    `INSERT INTO library_versions (library_pk, tag, title, state, updated_at) VALUES (?, ?, ?, 'initial', ?)`,
  )
  const versionsOf = db.prepare<[number], VersionRow>(
    `SELECT * FROM library_versions WHERE library_pk = ? ORDER BY tag = '' DESC, updated_at DESC`,
  )
  const versionOf = db.prepare<[number, string], VersionRow>('SELECT * FROM library_versions WHERE library_pk = ? AND tag = ?')
  const versionByPk = db.prepare<[number], VersionRow>('SELECT * FROM library_versions WHERE pk = ?')
  const setState = db.prepare(
    'UPDATE library_versions SET state = ?, error_code = ?, error_message = ?, updated_at = ? WHERE pk = ?',
  )
  const redirect = db.prepare<[string], { to_id: string }>('SELECT to_id FROM redirects WHERE from_id = ?')
  const insertRedirect = db.prepare(
    `INSERT INTO redirects (from_id, to_id, created_at) VALUES (?, ?, ?)
     ON CONFLICT (from_id) DO UPDATE SET to_id = excluded.to_id, created_at = excluded.created_at`,
  )
  const repointRedirects = db.prepare('UPDATE redirects SET to_id = ? WHERE to_id = ?')
  const dropRedirect = db.prepare('DELETE FROM redirects WHERE from_id = ?')
  const setsOfLibrary = db.prepare<[number], { pk: number }>(
    'SELECT s.pk FROM snippet_sets s JOIN library_versions v ON v.pk = s.version_pk WHERE v.library_pk = ?',
  )
  const deleteLibrary = db.prepare('DELETE FROM libraries WHERE pk = ?')
  const setsOfVersion = db.prepare<[number], { pk: number }>('SELECT pk FROM snippet_sets WHERE version_pk = ?')
  const deleteVersion = db.prepare('DELETE FROM library_versions WHERE pk = ?')

  const repo: LibrariesRepository = {
    byId: (id) => {
      const row = byId.get(id)
      return row && toLibrary(row)
    },
    byPk: (pk) => {
      const row = byPk.get(pk)
      return row && toLibrary(row)
    },
    list: () => all.all().map(toLibrary),
    create: db.transaction((input: NewLibrary) => {
      if (byId.get(input.id)) throw new LecternError('library_exists', `Library ${input.id} already exists.`)
      const now = nowIso()
      const { lastInsertRowid } = insertLibrary.run({
        id: input.id,
        title: input.title,
        description: input.description ?? '',
        sourceKind: input.sourceKind,
        sourceUrl: input.sourceUrl,
        branch: input.branch ?? null,
        isPrivate: input.isPrivate ? 1 : 0,
        isImported: input.isImported ? 1 : 0,
        teamPk: input.teamPk ?? null,
        options: JSON.stringify(input.options ?? {}),
        now,
      })
      const libraryPk = Number(lastInsertRowid)
      // A new library takes its ID back from any redirect that pointed elsewhere.
      dropRedirect.run(input.id)
      const version = insertVersion.run(libraryPk, '', '', now)
      return {
        library: toLibrary(byPk.get(libraryPk)!),
        version: toVersion(versionByPk.get(Number(version.lastInsertRowid))!),
      }
    }),
    update(pk, changes) {
      const current = byPk.get(pk)
      if (!current) throw new LecternError('library_not_found', `No library with pk ${pk}.`)
      const next = { ...toLibrary(current), ...changes }
      db.prepare(
        `UPDATE libraries SET title = ?, description = ?, branch = ?, rules = ?, options = ?, source_url = ?, is_private = ?, updated_at = ? WHERE pk = ?`,
      ).run(next.title, next.description, next.branch, JSON.stringify(next.rules), JSON.stringify(next.options), next.sourceUrl, next.isPrivate ? 1 : 0, nowIso(), pk)
      return toLibrary(byPk.get(pk)!)
    },
    redirectOf(id) {
      let target: string | undefined
      let current = id
      // Renames form chains (a -> b -> c); a bound stops a corrupt cycle from hanging a request.
      for (let hops = 0; hops < 16; hops++) {
        const row = redirect.get(current)
        if (!row) break
        target = row.to_id
        current = row.to_id
      }
      return target
    },
    rename: db.transaction((fromId: string, toId: string) => {
      const row = byId.get(fromId)
      if (!row) throw new LecternError('library_not_found', `No library ${fromId}.`)
      if (fromId === toId) throw new LecternError('validation_error', 'The new ID is the same as the old one.')
      if (byId.get(toId)) throw new LecternError('library_exists', `Library ${toId} already exists.`)
      db.prepare('UPDATE libraries SET id = ?, updated_at = ? WHERE pk = ?').run(toId, nowIso(), row.pk)
      dropRedirect.run(toId)
      repointRedirects.run(toId, fromId)
      insertRedirect.run(fromId, toId, nowIso())
      return toLibrary(byPk.get(row.pk)!)
    }),
    remove: (pk) => {
      const sets = setsOfLibrary.all(pk).map((r) => r.pk)
      deleteLibrary.run(pk)
      return sets
    },
    removeVersion: (versionPk) => {
      const sets = setsOfVersion.all(versionPk).map((r) => r.pk)
      deleteVersion.run(versionPk)
      return sets
    },
    versions: (libraryPk) => versionsOf.all(libraryPk).map(toVersion),
    version: (libraryPk, tag) => {
      const row = versionOf.get(libraryPk, tag)
      return row && toVersion(row)
    },
    versionByPk: (pk) => {
      const row = versionByPk.get(pk)
      return row && toVersion(row)
    },
    ensureVersion(libraryPk, tag, title = '') {
      const existing = versionOf.get(libraryPk, tag)
      if (existing) return toVersion(existing)
      const { lastInsertRowid } = insertVersion.run(libraryPk, tag, title, nowIso())
      return toVersion(versionByPk.get(Number(lastInsertRowid))!)
    },
    setVersionState(versionPk, state, error) {
      setState.run(state, error?.code ?? null, error?.message ?? null, nowIso(), versionPk)
    },
    markImported(pk, fields) {
      db.prepare(
        `UPDATE libraries SET is_imported = 1, title = ?, description = ?, source_type = ?, source_url = ?, branch = ?, updated_at = ? WHERE pk = ?`,
      ).run(fields.title, fields.description, fields.sourceKind, fields.sourceUrl, fields.branch, nowIso(), pk)
    },
  }
  return repo
}
