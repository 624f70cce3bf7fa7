/**
 * Retrieval for one question against one library version: BM25 over the set's own FTS5 table
 * and k-NN over its vector index, fused by reciprocal rank, de-duplicated and packed into the
 * token budget. It reads only that set's rows, so its cost does not grow with the store.
 */
import { canSeeLibrary, type Caller } from '../access.js'
import type { EmbedderPool } from '../embed/pool.js'
import { LecternError, isLecternError } from '../errors.js'
import { vectorIndexPath } from '../paths.js'
import type { Store } from '../store/index.js'
import type { Library, LibraryVersion } from '../store/libraries.js'
import type { SnippetSet, StoredSnippet } from '../store/snippets.js'
import { packSnippets } from './budget.js'
import { fuseRankings, type RankedPk } from './fusion.js'
import { libraryNotFound, resolveLibraryVersion } from './resolve.js'
import { matchExpression, questionTerms } from './terms.js'
import { VectorIndexCache, loadVectorIndex } from './vector-index.js'

/**
 * BM25 column weights: title, context (description, breadcrumb, page), body, identifier parts.
 * Body text matters as much as context: questions use the prose words of the answer, while
 * breadcrumbs and identifier parts repeat across a whole page (tuned with `npm run eval`).
 */
export const FTS_WEIGHTS = [8, 2, 2, 1] as const
/** Candidates taken from each ranking before fusion. */
export const CANDIDATES = 50
export const LEXICAL_WEIGHT = 1
export const VECTOR_WEIGHT = 0.8

export interface ContextRequest {
  libraryId: string
  query: string
  tokens: number
  /** Who asks: decides which libraries exist for them (access.ts). */
  caller: Caller
}

export interface ContextAnswer {
  library: Library
  version: LibraryVersion
  /** Best first: the order of the `txt` answer. */
  snippets: StoredSnippet[]
  /** The fused score of each snippet, in the same order. */
  scores: number[]
}

/**
 * Which rankings answer: BM25 alone, the vector index alone, or both fused. `auto` fuses for
 * real embedders and, for the built-in hash embedder (a second lexical signal, measured to add
 * nothing over BM25 on the development set), uses BM25 alone.
 */
export type Signals = 'auto' | 'lexical' | 'vector' | 'fused'

/** What `auto` uses for sets embedded by the hash embedder (bench/RESULTS.md, "signals"). */
const HASH_SIGNALS: Exclude<Signals, 'auto'> = 'fused'

export interface RetrieverLog {
  warn(obj: object, msg: string): void
}

interface Resolution {
  /** store.dataVersion() when resolved: any write since makes the entry stale. */
  at: string
  /** The library ID as resolved, without its version pin. */
  id: string
  library: Library
  version: LibraryVersion
  set: SnippetSet
}

/** Resolutions kept per library ID as written; a bound, since IDs come from clients. */
const MAX_RESOLUTIONS = 10_000

export class Retriever {
  private readonly vectors = new VectorIndexCache()
  private readonly missingIndexes = new Set<number>()
  private readonly resolutions = new Map<string, Resolution>()

  constructor(
    private readonly store: Store,
    private readonly embedders: EmbedderPool,
    private readonly log: RetrieverLog = { warn: () => {} },
    private readonly signals: Signals = 'auto',
  ) {}

  async getContext(request: ContextRequest): Promise<ContextAnswer> {
    const { library, version, set } = this.resolve(request.libraryId, request.caller)
    const setPk = set.pk
    let snippets: StoredSnippet[]
    let scores: number[]
    try {
      const ranked = await this.rankSet(set, request.query)
      const scoreOf = new Map(ranked.map((r) => [r.pk, r.score]))
      // Pack on token counts alone, then read whole rows only for what made it into the answer.
      const picked = packSnippets(this.store.snippets.tokensOf(ranked.map((r) => r.pk)), request.tokens)
      snippets = this.store.snippets.byPks(picked.map((s) => s.pk))
      scores = snippets.map((s) => scoreOf.get(s.pk) ?? 0)
    } catch (err) {
      if (isLecternError(err)) throw err
      this.log.warn({ err, libraryId: library.id, setPk }, 'retrieval failed')
      throw new LecternError('search_failed', 'Searching the library failed; retry in a moment.', {}, { cause: err })
    }
    if (snippets.length === 0) {
      throw new LecternError('no_snippets_found', `No snippets found in ${library.id} for this question.`)
    }
    return { library, version, snippets, scores }
  }

  /** Snippet pks of a set, best first, for a question. */
  async rank(setPk: number, question: string): Promise<number[]> {
    const set = this.store.snippets.set(setPk)
    if (!set) throw new Error(`snippet set ${setPk} vanished`)
    return (await this.rankSet(set, question)).map((r) => r.pk)
  }

  /**
   * The library, version and live set a client's library ID names. Resolving costs a few
   * queries; a request rate of thousands per second makes them worth remembering until the
   * next write to the database. Refusals (404, 301, 202...) are not remembered. A remembered
   * resolution is checked against the caller first, as resolving would.
   */
  private resolve(libraryId: string, caller: Caller): Resolution {
    const at = this.store.dataVersion()
    const hit = this.resolutions.get(libraryId)
    if (hit?.at === at) {
      if (!canSeeLibrary(caller, hit.library)) throw libraryNotFound(hit.id)
      return hit
    }
    const { ref, library, version, setPk } = resolveLibraryVersion(this.store.libraries, libraryId, caller)
    const set = this.store.snippets.set(setPk)
    if (!set) throw new Error(`snippet set ${setPk} vanished`)
    if (this.resolutions.size >= MAX_RESOLUTIONS) this.resolutions.clear()
    const resolution = { at, id: ref.id, library, version, set }
    this.resolutions.set(libraryId, resolution)
    return resolution
  }

  private async rankSet(set: SnippetSet, question: string): Promise<RankedPk[]> {
    const signals = this.signals === 'auto' ? (set.embedProvider === 'hash' ? HASH_SIGNALS : 'fused') : this.signals
    const match = signals === 'vector' ? undefined : matchExpression(questionTerms(question))
    const lexical = match ? this.store.snippets.ftsSearch(set.pk, match, CANDIDATES, FTS_WEIGHTS).map((h) => h.pk) : []
    const semantic = signals === 'lexical' ? [] : await this.vectorSearch(set, question)
    return fuseRankings([
      { pks: lexical, weight: LEXICAL_WEIGHT },
      { pks: semantic, weight: VECTOR_WEIGHT },
    ]).slice(0, CANDIDATES)
  }

  forgetSet(setPk: number): void {
    this.vectors.forget(setPk)
    this.missingIndexes.delete(setPk)
  }

  private async vectorSearch(set: SnippetSet, question: string): Promise<number[]> {
    if (this.missingIndexes.has(set.pk)) return []
    try {
      const file = vectorIndexPath(this.store.paths, set.pk)
      const index = this.vectors.get(set.pk, () => loadVectorIndex(file, { dimensions: set.dimensions, count: this.store.snippets.count(set.pk) }))
      const [vector] = await this.embedders.forSet(set).embed([question])
      return index.search(vector, CANDIDATES).map((h) => h.pk)
    } catch (err) {
      // Derived data or a remote embedder: the start-up check rebuilds a bad index, and until
      // then (or while the embedder is down) BM25 alone answers rather than failing the request.
      this.missingIndexes.add(set.pk)
      this.log.warn({ setPk: set.pk, err }, 'vector search unavailable; answering with BM25 only')
      return []
    }
  }
}
