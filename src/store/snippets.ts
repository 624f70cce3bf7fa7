/**
 * Snippet sets and snippets, the source of truth every index is derived from (the lexical index
 * is built in memory from a set's rows, the vector index is a file per set). Sets of 0.1.0 had
 * an FTS5 table `fts_<set pk>` each; dropping a set drops it when there is one.
 *
 * Guarantee: a set is written while `building`, and `finalizeSet` swaps the version's
 * `current_set` in one transaction, so readers see the old set or the new one, never half.
 */
import { nowIso, openConnection, type Db } from './db.js'

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
  createSet(versionPk: number, embedder: { provider: string; model: string; dimensions: number }): SnippetSet
  /** Inserts snippets not yet in the set (by hash); returns the pks of the new rows, in input order (null for duplicates). */
  insert(setPk: number, snippets: NewSnippet[]): Array<number | null>
  /** Makes `setPk` the version's live set with the given totals; returns the set it replaced. */
  finalizeSet(setPk: number, versionPk: number, totals: { tokens: number; snippets: number; commitSha: string | null }): number | null
  /** Drops the FTS5 table a set of Lectern 0.1.0 had, if any: deleting a set's row by cascade leaves it. */
  dropLegacyFts(setPk: number): void
  /** Drops a set with its FTS table and rows (the caller removes its vector file). */
  dropSet(setPk: number): void
  set(setPk: number): SnippetSet | undefined
  setsWithStatus(status: SnippetSet['status']): SnippetSet[]
  /** All snippets of a set in pk order (rebuilding a vector index, export). */
  allOfSet(setPk: number): StoredSnippet[]
  /** What loading a set needs of each snippet beside its engine file, in pk order: no bodies. */
  headsOfSet(setPk: number): SnippetHead[]
  count(setPk: number): number
  /** The pages a set's snippets come from (a source without its `#anchor`), with their snippet counts, by page. */
  pagesOfSet(setPk: number): Array<{ page: string; title: string; snippets: number }>
  /** A page's snippets in the order they were made (their order on the page). */
  snippetsOfPage(setPk: number, page: string): StoredSnippet[]
  /** Records that a set's vectors now come from another embedder (after its index file was switched). */
  setEmbedding(setPk: number, embedder: { provider: string; model: string; dimensions: number }): void
}

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
  return createSnippetsRepository(openConnection(database, { readonly: true }))
}

export function createSnippetsRepository(db: Db): SnippetsRepository {
  const insertSet = db.prepare(
    `INSERT INTO snippet_sets (version_pk, status, embed_provider, embed_model, dimensions, created_at) VALUES (?, 'building', ?, ?, ?, ?)`,
  )
  const setByPk = db.prepare<[number], SetRow>('SELECT * FROM snippet_sets WHERE pk = ?')
  const setsByStatus = db.prepare<[string], SetRow>('SELECT * FROM snippet_sets WHERE status = ? ORDER BY pk')
  const insertSnippet = db.prepare(
    `INSERT OR IGNORE INTO snippets (set_pk, kind, title, description, breadcrumb, page_title, language, body, source, tokens, hash, includes, also_at)
     VALUES (@setPk, @kind, @title, @description, @breadcrumb, @pageTitle, @language, @body, @source, @tokens, @hash, @includes, @alsoAt)`,
  )
  const snippetsOfSet = db.prepare<[number], SnippetRow>('SELECT * FROM snippets WHERE set_pk = ? ORDER BY pk')
  const headsOfSet = db.prepare<[number], SnippetHead>('SELECT pk, kind, title, tokens, hash FROM snippets WHERE set_pk = ? ORDER BY pk')
  const countOfSet = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM snippets WHERE set_pk = ?')
  const PAGE_OF_SOURCE = "CASE WHEN instr(source, '#') > 0 THEN substr(source, 1, instr(source, '#') - 1) ELSE source END"
  const pagesOfSet = db.prepare<[number], { page: string; title: string; snippets: number }>(
    `SELECT ${PAGE_OF_SOURCE} AS page, max(page_title) AS title, count(*) AS snippets FROM snippets WHERE set_pk = ? GROUP BY page ORDER BY page`,
  )
  const snippetsOfPage = db.prepare<[number, string], SnippetRow>(`SELECT * FROM snippets WHERE set_pk = ? AND ${PAGE_OF_SOURCE} = ? ORDER BY pk`)
  const currentOf = db.prepare<[number], { current_set: number | null }>('SELECT current_set FROM library_versions WHERE pk = ?')
  // A version that a job is processing stays `processing` until the job's outcome is recorded
  // (the worker settles it then): `finalized` must mean that no job holds the library, or a client
  // that waits for it and then refreshes is told library_busy.
  const promote = db.prepare(
    `UPDATE library_versions SET current_set = ?, state = CASE state WHEN 'processing' THEN 'processing' ELSE 'finalized' END,
       error_code = NULL, error_message = NULL,
       total_tokens = ?, total_snippets = ?, commit_sha = ?, updated_at = ? WHERE pk = ?`,
  )
  const setStatus = db.prepare('UPDATE snippet_sets SET status = ? WHERE pk = ?')
  const deleteSnippets = db.prepare('DELETE FROM snippets WHERE set_pk = ?')
  const deleteSet = db.prepare('DELETE FROM snippet_sets WHERE pk = ?')
  return {
    createSet(versionPk, embedder) {
      const { lastInsertRowid } = insertSet.run(versionPk, embedder.provider, embedder.model, embedder.dimensions, nowIso())
      return toSet(setByPk.get(Number(lastInsertRowid))!)
    },
    insert: db.transaction((setPk: number, snippets: NewSnippet[]) =>
      snippets.map((snippet) => {
        const result = insertSnippet.run({ setPk, ...snippet, includes: JSON.stringify(snippet.includes ?? []), alsoAt: JSON.stringify(snippet.alsoAt ?? []) })
        return result.changes === 0 ? null : Number(result.lastInsertRowid)
      }),
    ),
    finalizeSet: db.transaction((setPk: number, versionPk: number, totals: { tokens: number; snippets: number; commitSha: string | null }) => {
      const previous = currentOf.get(versionPk)?.current_set ?? null
      promote.run(setPk, totals.tokens, totals.snippets, totals.commitSha, nowIso(), versionPk)
      setStatus.run('live', setPk)
      if (previous !== null && previous !== setPk) setStatus.run('retired', previous)
      return previous === setPk ? null : previous
    }),
    dropLegacyFts: (setPk) => void db.exec(`DROP TABLE IF EXISTS ${legacyFtsTable(setPk)}`),
    dropSet: db.transaction((setPk: number) => {
      db.exec(`DROP TABLE IF EXISTS ${legacyFtsTable(setPk)}`)
      deleteSnippets.run(setPk)
      deleteSet.run(setPk)
    }),
    set: (pk) => {
      const row = setByPk.get(pk)
      return row && toSet(row)
    },
    setsWithStatus: (status) => setsByStatus.all(status).map(toSet),
    allOfSet: (setPk) => snippetsOfSet.all(setPk).map(toSnippet),
    headsOfSet: (setPk) => headsOfSet.all(setPk),
    count: (setPk) => countOfSet.get(setPk)!.n,
    pagesOfSet: (setPk) => pagesOfSet.all(setPk),
    snippetsOfPage: (setPk, page) => snippetsOfPage.all(setPk, page).map(toSnippet),
    setEmbedding(setPk, embedder) {
      db.prepare('UPDATE snippet_sets SET embed_provider = ?, embed_model = ?, dimensions = ? WHERE pk = ?').run(embedder.provider, embedder.model, embedder.dimensions, setPk)
    },
  }
}
