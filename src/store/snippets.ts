/**
 * Snippet sets and snippets, the source of truth every index is derived from (the lexical index
 * is built in memory from a set's rows, the vector index is a file per set). Sets of 0.1.0 had
 * an FTS5 table `fts_<set pk>` each; dropping a set drops it when there is one.
 *
 * Guarantee: a set is written while `building`, and `finalizeSet` swaps the version's
 * `current_set` in one transaction, so readers see the old set or the new one, never half.
 */
import { nowIso, openConnection } from './db.js'
import { createSqliteSql } from './sqlite-sql.js'
import type { Sql, SqlValue } from './sql.js'

export type SnippetKind = 'code' | 'info'

export interface StoredSnippet {
  pk: number
  setPk: number
  kind: SnippetKind
  title: string
  description: string
  breadcrumb: string
  pageTitle: string
  language: string
  /** For code: JSON of `{language, code}[]`; for info: the content text. */
  body: string
  source: string
  tokens: number
  hash: string
  /** Repository files the code was included from. */
  includes: string[]
  /** Other pages showing the same content (links like `source`). */
  alsoAt: string[]
}

export type NewSnippet = Omit<StoredSnippet, 'pk' | 'setPk' | 'includes' | 'alsoAt'> & Partial<Pick<StoredSnippet, 'includes' | 'alsoAt'>>

export type SnippetHead = Pick<StoredSnippet, 'pk' | 'kind' | 'title' | 'tokens' | 'hash'>

export interface SnippetSet {
  pk: number
  versionPk: number
  status: 'building' | 'live' | 'retired'
  embedProvider: string
  embedModel: string
  dimensions: number
}

export interface SnippetsRepository {
  createSet(versionPk: number, embedder: { provider: string; model: string; dimensions: number }): Promise<SnippetSet>
  /**
   * Inserts snippets not yet in the set (by hash), each with its vector when `vectors` is given (a
   * real embedder's, migration 0029); returns the pks of the new rows, in input order (null for duplicates).
   */
  insert(setPk: number, snippets: NewSnippet[], vectors?: readonly Float32Array[]): Promise<Array<number | null>>
  /** Makes `setPk` the version's live set with the given totals; returns the set it replaced. */
  finalizeSet(setPk: number, versionPk: number, totals: { tokens: number; snippets: number; commitSha: string | null }): Promise<number | null>
  /** Drops the FTS5 table a set of Lectern 0.1.0 had, if any: deleting a set's row by cascade leaves it. */
  dropLegacyFts(setPk: number): Promise<void>
  /** Drops a set with its FTS table and rows (the caller removes its vector file). */
  dropSet(setPk: number): Promise<void>
  set(setPk: number): Promise<SnippetSet | undefined>
  setsWithStatus(status: SnippetSet['status']): Promise<SnippetSet[]>
  /**
   * The `building` sets no job may still be writing: none of their version's running jobs holds a
   * lease that lasts until `now` (src/jobs/lease.ts). Only ingest and import jobs build sets, and
   * always for their own version.
   */
  abandonedSets(now: string): Promise<SnippetSet[]>
  /** All snippets of a set in pk order (rebuilding a vector index, export). */
  allOfSet(setPk: number): Promise<StoredSnippet[]>
  /** What loading a set needs of each snippet beside its engine file, in pk order: no bodies. */
  headsOfSet(setPk: number): Promise<SnippetHead[]>
  count(setPk: number): Promise<number>
  /** The pages a set's snippets come from (a source without its `#anchor`), with their snippet counts, by page. */
  pagesOfSet(setPk: number): Promise<Array<{ page: string; title: string; snippets: number }>>
  /** A page's snippets in the order they were made (their order on the page). */
  snippetsOfPage(setPk: number, page: string): Promise<StoredSnippet[]>
  /** Records that a set's vectors now come from another embedder (after its index file was switched). */
  setEmbedding(setPk: number, embedder: { provider: string; model: string; dimensions: number }): Promise<void>
  /**
   * Up to `limit` of the set's snippets after `afterPk`, in pk order, with their stored vectors
   * (null where none is stored): a set's vectors are read a page at a time, never all at once.
   */
  vectorPage(setPk: number, afterPk: number, limit: number): Promise<Array<{ pk: number; vector: Float32Array | null }>>
  /** Whether a row of the set holds no vector of `dimensions` (a set built before vectors were stored, or a rebuild cut short). */
  lacksVectors(setPk: number, dimensions: number): Promise<boolean>
  /** Stores the vectors of the given snippets of a set (a re-embedding, a rebuilt index), or with null clears every vector of the set. */
  setVectors(setPk: number, vectors: ReadonlyArray<{ pk: number; vector: Float32Array }> | null): Promise<void>
}

/** Every column of a snippet but its vector, which only vector indexes read. */
const SNIPPET_COLUMNS = 'pk, set_pk, kind, title, description, breadcrumb, page_title, language, body, source, tokens, hash, includes, also_at'

/** A vector as its column holds it: float32 in this machine's byte order (little-endian wherever Node runs). */
const vectorBytes = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)

/** A column's bytes as a vector of its own (copied: a Buffer's offset need not be aligned for a Float32Array). */
const vectorOf = (bytes: Buffer): Float32Array => new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))

interface SetRow {
  pk: number
  version_pk: number
  status: SnippetSet['status']
  embed_provider: string
  embed_model: string
  dimensions: number
}

interface SnippetRow {
  pk: number
  set_pk: number
  kind: SnippetKind
  title: string
  description: string
  breadcrumb: string
  page_title: string
  language: string
  body: string
  source: string
  tokens: number
  hash: string
  includes: string
  also_at: string
}

const toSet = (r: SetRow): SnippetSet => ({
  pk: r.pk,
  versionPk: r.version_pk,
  status: r.status,
  embedProvider: r.embed_provider,
  embedModel: r.embed_model,
  dimensions: r.dimensions,
})

const toSnippet = (r: SnippetRow): StoredSnippet => ({
  pk: r.pk,
  setPk: r.set_pk,
  kind: r.kind,
  title: r.title,
  description: r.description,
  breadcrumb: r.breadcrumb,
  pageTitle: r.page_title,
  language: r.language,
  body: r.body,
  source: r.source,
  tokens: r.tokens,
  hash: r.hash,
  includes: JSON.parse(r.includes) as string[],
  alsoAt: JSON.parse(r.also_at) as string[],
})

/** The FTS5 table a set of Lectern 0.1.0 had; newer sets have none. */
const legacyFtsTable = (setPk: number): string => `fts_${Math.trunc(setPk)}`

/** The snippets of a database file through a read-only connection of its own: for a thread that only reads them. */
export function openReadOnlySnippets(database: string): SnippetsRepository {
  return createSnippetsRepository(createSqliteSql(openConnection(database, { readonly: true })))
}

/** The page of a snippet's source: the source without its `#anchor`. */
const pageOf = (source: string): string => {
  const hash = source.indexOf('#')
  return hash < 0 ? source : source.slice(0, hash)
}

/** SQLite's order of text (its bytes in UTF-8), which a page list has always had. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

const INSERT_SNIPPET = 'INSERT INTO snippets (set_pk, kind, title, description, breadcrumb, page_title, language, body, source, tokens, hash, includes, also_at, vector) VALUES'
const ROW_PLACEHOLDERS = Array.from({ length: 14 }, () => '?').join(', ')

/**
 * A batch in one INSERT: the pk of each snippet stored, null for one whose hash the set already
 * holds (from an earlier batch, or earlier in this one), as the row-by-row insert answers.
 */
async function insertAtOnce(sql: Sql, snippets: NewSnippet[], values: SqlValue[][]): Promise<Array<number | null>> {
  if (snippets.length === 0) return []
  const rows = await sql.all<{ pk: number; hash: string }>(
    `${INSERT_SNIPPET} ${values.map(() => `(${ROW_PLACEHOLDERS})`).join(', ')} ON CONFLICT DO NOTHING RETURNING pk, hash`,
    values.flat(),
  )
  const stored = new Map(rows.map((r) => [r.hash, r.pk]))
  return snippets.map((s) => {
    const pk = stored.get(s.hash)
    // The first snippet of a hash took the row; a later one in the batch is a duplicate.
    stored.delete(s.hash)
    return pk ?? null
  })
}

export function createSnippetsRepository(sql: Sql): SnippetsRepository {
  const setByPk = (pk: number) => sql.get<SetRow>('SELECT * FROM snippet_sets WHERE pk = ?', [pk])
  const setStatus = (status: SnippetSet['status'], pk: number) => sql.run('UPDATE snippet_sets SET status = ? WHERE pk = ?', [status, pk])
  const dropLegacyFts = (setPk: number) => sql.run(`DROP TABLE IF EXISTS ${legacyFtsTable(setPk)}`)
  return {
    async createSet(versionPk, embedder) {
      const row = await sql.get<SetRow>(
        `INSERT INTO snippet_sets (version_pk, status, embed_provider, embed_model, dimensions, created_at) VALUES (?, 'building', ?, ?, ?, ?) RETURNING *`,
        [versionPk, embedder.provider, embedder.model, embedder.dimensions, nowIso()],
      )
      return toSet(row!)
    },
    insert: (setPk, snippets, vectors) =>
      sql.transaction(async () => {
        const values = snippets.map((s, i) => {
          const vector = vectors?.[i]
          return [setPk, s.kind, s.title, s.description, s.breadcrumb, s.pageTitle, s.language, s.body, s.source, s.tokens, s.hash, JSON.stringify(s.includes ?? []), JSON.stringify(s.alsoAt ?? []), vector ? vectorBytes(vector) : null]
        })
        // PostgreSQL answers over the network: one statement for the batch, not a round trip a row.
        if (sql.dialect === 'postgres') return await insertAtOnce(sql, snippets, values)
        const pks: Array<number | null> = []
        for (const row of values) pks.push((await sql.get<{ pk: number }>(`${INSERT_SNIPPET} (${ROW_PLACEHOLDERS}) ON CONFLICT DO NOTHING RETURNING pk`, row))?.pk ?? null)
        return pks
      }),
    finalizeSet: (setPk, versionPk, totals) =>
      sql.transaction(async () => {
        const previous = (await sql.get<{ current_set: number | null }>('SELECT current_set FROM library_versions WHERE pk = ?', [versionPk]))?.current_set ?? null
        // A version that a job is processing stays `processing` until the job's outcome is recorded
        // (the worker settles it then): `finalized` must mean that no job holds the library, or a client
        // that waits for it and then refreshes is told library_busy.
        await sql.run(
          `UPDATE library_versions SET current_set = ?, state = CASE state WHEN 'processing' THEN 'processing' ELSE 'finalized' END,
             error_code = NULL, error_message = NULL,
             total_tokens = ?, total_snippets = ?, commit_sha = ?, updated_at = ? WHERE pk = ?`,
          [setPk, totals.tokens, totals.snippets, totals.commitSha, nowIso(), versionPk],
        )
        await setStatus('live', setPk)
        if (previous !== null && previous !== setPk) await setStatus('retired', previous)
        return previous === setPk ? null : previous
      }),
    async dropLegacyFts(setPk) {
      await dropLegacyFts(setPk)
    },
    dropSet: (setPk) =>
      sql.transaction(async () => {
        await dropLegacyFts(setPk)
        await sql.run('DELETE FROM snippets WHERE set_pk = ?', [setPk])
        await sql.run('DELETE FROM snippet_sets WHERE pk = ?', [setPk])
      }),
    async set(pk) {
      const row = await setByPk(pk)
      return row && toSet(row)
    },
    setsWithStatus: async (status) => (await sql.all<SetRow>('SELECT * FROM snippet_sets WHERE status = ? ORDER BY pk', [status])).map(toSet),
    abandonedSets: async (now) =>
      (
        await sql.all<SetRow>(
          `SELECT * FROM snippet_sets s WHERE s.status = 'building'
             AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.version_pk = s.version_pk AND j.state = 'running' AND j.lease_until >= ?)
           ORDER BY s.pk`,
          [now],
        )
      ).map(toSet),
    allOfSet: async (setPk) => (await sql.all<SnippetRow>(`SELECT ${SNIPPET_COLUMNS} FROM snippets WHERE set_pk = ? ORDER BY pk`, [setPk])).map(toSnippet),
    headsOfSet: (setPk) => sql.all<SnippetHead>('SELECT pk, kind, title, tokens, hash FROM snippets WHERE set_pk = ? ORDER BY pk', [setPk]),
    count: async (setPk) => (await sql.get<{ n: number }>('SELECT count(*) AS n FROM snippets WHERE set_pk = ?', [setPk]))!.n,
    async pagesOfSet(setPk) {
      const pages = new Map<string, { page: string; title: string; snippets: number }>()
      for (const row of await sql.all<{ source: string; page_title: string }>('SELECT source, page_title FROM snippets WHERE set_pk = ?', [setPk])) {
        const page = pageOf(row.source)
        const entry = pages.get(page)
        if (!entry) pages.set(page, { page, title: row.page_title, snippets: 1 })
        else {
          entry.snippets++
          if (byBytes(row.page_title, entry.title) > 0) entry.title = row.page_title
        }
      }
      return [...pages.values()].sort((a, b) => byBytes(a.page, b.page))
    },
    snippetsOfPage: async (setPk, page) =>
      (
        await sql.all<SnippetRow>(`SELECT ${SNIPPET_COLUMNS} FROM snippets WHERE set_pk = ? AND (source = ? OR substr(source, 1, ?) = ?) ORDER BY pk`, [
          setPk,
          page,
          [...page].length + 1,
          `${page}#`,
        ])
      ).map(toSnippet),
    async setEmbedding(setPk, embedder) {
      await sql.run('UPDATE snippet_sets SET embed_provider = ?, embed_model = ?, dimensions = ? WHERE pk = ?', [embedder.provider, embedder.model, embedder.dimensions, setPk])
    },
    vectorPage: async (setPk, afterPk, limit) =>
      (await sql.all<{ pk: number; vector: Buffer | null }>('SELECT pk, vector FROM snippets WHERE set_pk = ? AND pk > ? ORDER BY pk LIMIT ?', [setPk, afterPk, limit])).map(
        (row) => ({ pk: row.pk, vector: row.vector === null ? null : vectorOf(row.vector) }),
      ),
    lacksVectors: async (setPk, dimensions) =>
      (await sql.get<{ one: number }>('SELECT 1 AS one FROM snippets WHERE set_pk = ? AND (vector IS NULL OR LENGTH(vector) <> ?) LIMIT 1', [setPk, dimensions * 4])) !== undefined,
    setVectors: (setPk, vectors) =>
      sql.transaction(async () => {
        if (vectors === null) await sql.run('UPDATE snippets SET vector = NULL WHERE set_pk = ?', [setPk])
        else for (const { pk, vector } of vectors) await sql.run('UPDATE snippets SET vector = ? WHERE pk = ? AND set_pk = ?', [vectorBytes(vector), pk, setPk])
      }),
  }
}
