/**
 * Retrieval for one question against one library version: the set's lexical index (BM25F with
 * question coverage, index/lexical-index.ts) and its vectors, fused, then packed into the token
 * budget without near-duplicates. A ranked explanation brings its section's code along
 * (section-code.ts). It reads only that set's data, so its cost does not grow with the store.
 * How the signals are fused was measured on the development set (bench/RESULTS.md): the
 * built-in hash embedder's cosine re-ranks the lexical candidates (fusion.ts); a real embedder's
 * nearest neighbours (the vector index) are fused by reciprocal rank, which needs no calibration
 * between unrelated scales.
 */
import os from 'node:os'
import type { Caller } from '../library/access.js'
import { accessDenied, asksPolicy, decide, storedPolicySubject } from '../library/visibility.js'
import type { EmbedderPool } from '../embed/pool.js'
import { LecternError, isLecternError } from '../errors.js'
import { SetEngine } from '../index/engine.js'
import type { SetCacheStats } from '../index/set-cache.js'
import type { LoadedSet } from '../index/loaded-set.js'
import type { SetFileRebuilder } from '../index/rebuilder.js'
import type { Store } from '../store/index.js'
import type { Library, LibraryVersion } from '../store/libraries.js'
import type { SnippetSet } from '../store/snippets.js'
import type { PolicySubject } from '../tenancy/policies.js'
import { questionTerms } from '../text/terms.js'
import { checkTokenBudget, packSnippets } from './budget.js'
import { fuseRankings, HASH_VECTOR_WEIGHT, rescoreByHashSimilarity, type RankedDoc, type RankedPk } from './fusion.js'
import type { RenderedSnippet } from '../index/render.js'
import { libraryNotFound, resolveLibraryVersion } from './resolve.js'
import { withSectionCode } from './section-code.js'
import type { VectorHit } from '../index/vector-index.js'

/** Candidates taken from each ranking before fusion. */
export const CANDIDATES = 50
/** Sets of real embedders: reciprocal-rank fusion weights of the lexical and vector rankings. */
export const RRF_WEIGHTS = { lexical: 1, vector: 1 } as const
/** Memory for loaded sets when the caller names none: a quarter of this host's RAM. */
export const DEFAULT_SET_CACHE_BYTES = Math.floor(os.totalmem() / 4)

export interface ContextRequest {
  libraryId: string
  query: string
  tokens: number
  /** Who asks: decides which libraries exist for them (library/visibility.ts). */
  caller: Caller
  /** The catalogue version the request already read (the server reads it once per request); read here when absent. */
  catalogVersion?: number
}

export interface ContextAnswer {
  library: Library
  version: LibraryVersion
  /** Best first: the order of the `txt` answer. */
  snippets: RenderedSnippet[]
  /** The fused score of each snippet, in the same order. */
  scores: number[]
}

/**
 * Which rankings answer: the lexical index alone, the vector index alone, or both fused (the
 * default, best on the development set for the hash embedder too: `npm run eval -- --signals`).
 */
export type Signals = 'lexical' | 'vector' | 'fused'

export interface RetrieverLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

interface Resolution {
  /** store.catalogVersion() when resolved: any change to the catalogue since makes the entry stale. */
  at: number
  /** The library ID as resolved, without its version pin. */
  id: string
  library: Library
  version: LibraryVersion
  set: SnippetSet
  /** The library as teamspace policies see it, read at the first check that needs it. */
  subject?: PolicySubject
}

/** Resolutions kept per library ID as written; a bound, since IDs come from clients. */
const MAX_RESOLUTIONS = 10_000

/**
 * Refuses a question without a letter or digit (empty, spaces, "???", a zero-width space): it
 * has no word to search for, and the answer would be arbitrary snippets. Every path (REST, MCP,
 * CLI) checks it here, so each says the same.
 */
function checkQuestion(query: string): void {
  if (!/[\p{L}\p{N}]/u.test(query)) {
    throw new LecternError('validation_error', 'The question (query) has no words: ask in plain words, e.g. "register a route with a schema".')
  }
}

export class Retriever {
  private readonly sets: SetEngine
  private readonly resolutions = new Map<string, Resolution>()

  constructor(
    private readonly store: Store,
    private readonly embedders: EmbedderPool,
    private readonly log: RetrieverLog = { info: () => {}, warn: () => {} },
    private readonly signals: Signals = 'fused',
    cacheBytes = DEFAULT_SET_CACHE_BYTES,
    rebuilder?: SetFileRebuilder,
  ) {
    this.sets = new SetEngine(store, cacheBytes, log, rebuilder)
  }

  async getContext(request: ContextRequest): Promise<ContextAnswer> {
    checkTokenBudget(request.tokens)
    checkQuestion(request.query)
    const { library, version, set } = await this.resolve(request.libraryId, request.caller, request.catalogVersion ?? this.store.catalogVersion())
    const setPk = set.pk
    let snippets: RenderedSnippet[]
    let scores: number[]
    try {
      const loaded = await this.sets.loaded(set)
      const ranked = await this.rankSet(set, loaded, request.query)
      const candidates = ranked.map((r) => ({ doc: r.doc, score: r.score, tokens: loaded.snippets.tokens(r.doc) }))
      const picked = packSnippets(candidates, request.tokens, (a, b) => loaded.lexical.nearDuplicates(a.doc, b.doc))
      snippets = picked.map((p) => loaded.snippets.at(p.doc))
      scores = picked.map((p) => p.score)
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
    const set = await this.store.snippets.set(setPk)
    if (!set) throw new Error(`snippet set ${setPk} vanished`)
    const loaded = await this.sets.loaded(set)
    return (await this.rankSet(set, loaded, question)).map((r) => loaded.snippets.pk(r.doc))
  }

  /**
   * The library, version and live set a client's library ID names. Resolving costs a few
   * queries; a request rate of thousands per second makes them worth remembering until the
   * catalogue changes (`at`, the version the request read). Refusals (404, 301, 202...) are not
   * remembered. A remembered resolution is checked against the caller first, as resolving would.
   */
  private async resolve(libraryId: string, caller: Caller, at: number): Promise<Resolution> {
    const hit = this.resolutions.get(libraryId)
    if (hit?.at === at) {
      if (asksPolicy(caller)) hit.subject ??= await storedPolicySubject(this.store.libraries, hit.library)
      const verdict = decide(caller, hit.library, () => hit.subject!)
      if (verdict === 'unknown') throw libraryNotFound(hit.id, caller, hit.library)
      if (verdict === 'denied') throw accessDenied(hit.library)
      return hit
    }
    let subject: PolicySubject | undefined
    const { ref, library, version, setPk } = await resolveLibraryVersion(this.store.libraries, libraryId, caller, async (found) => (subject = await storedPolicySubject(this.store.libraries, found)))
    const set = await this.store.snippets.set(setPk)
    if (!set) throw new Error(`snippet set ${setPk} vanished`)
    if (this.resolutions.size >= MAX_RESOLUTIONS) this.resolutions.clear()
    const resolution: Resolution = { at, id: ref.id, library, version, set, subject }
    this.resolutions.set(libraryId, resolution)
    return resolution
  }

  /** The set's best candidates for a question, best first, by their position in the loaded set; code beside its explanation. */
  private async rankSet(set: SnippetSet, loaded: LoadedSet, question: string): Promise<RankedDoc[]> {
    return withSectionCode(await this.rankBySignals(set, loaded, question), loaded)
  }

  /** The candidates as the lexical index, the vectors or both rank them. */
  private async rankBySignals(set: SnippetSet, loaded: LoadedSet, question: string): Promise<RankedDoc[]> {
    const lexical = this.signals === 'vector' ? [] : loaded.lexical.search(questionTerms(question), CANDIDATES)
    if (this.signals === 'lexical') return lexical
    const { vectors } = loaded
    if (vectors) {
      const [vector] = await (await this.embedders.forSet(set)).embed([question])
      if (this.signals === 'fused' && lexical.length > 0) return rescoreByHashSimilarity(lexical, vectors.similarities(vector, lexical.map((hit) => hit.doc)))
      // A question none of whose words occur in the set (a typo, another spelling) still has
      // neighbours among the hash vectors, which hash parts of words too.
      return vectors.nearest(vector, CANDIDATES).map(({ doc, cosine }) => ({ doc, score: HASH_VECTOR_WEIGHT * cosine }))
    }
    // The vector index answers by pk; a pk not in the loaded set cannot be answered with.
    const inSet = (ranked: RankedPk[]) => ranked.flatMap(({ pk, score }) => {
      const doc = loaded.snippets.docOf(pk)
      return doc === undefined ? [] : [{ doc, score }]
    })
    const semantic = await this.vectorSearch(set, loaded, question)
    if (this.signals === 'vector') return inSet(semantic.map((hit) => ({ pk: hit.pk, score: HASH_VECTOR_WEIGHT * (1 - hit.distance) })))
    const fused = fuseRankings([
      { pks: lexical.map((hit) => loaded.snippets.pk(hit.doc)), weight: RRF_WEIGHTS.lexical },
      { pks: semantic.map((hit) => hit.pk), weight: RRF_WEIGHTS.vector },
    ])
    return inSet(fused.slice(0, CANDIDATES))
  }

  /** Loads the given sets ahead of their first request (SetEngine.warm). */
  warm(setPks: readonly number[], signal?: AbortSignal): Promise<number> {
    return this.sets.warm(setPks, signal)
  }

  /** What the loaded sets hold. */
  cacheStats(): SetCacheStats {
    return this.sets.stats()
  }

  forgetSet(setPk: number): void {
    this.sets.forget(setPk)
  }

  private async vectorSearch(set: SnippetSet, loaded: LoadedSet, question: string): Promise<VectorHit[]> {
    const index = await this.sets.vectorIndex(loaded, set)
    if (!index) return []
    try {
      const [vector] = await (await this.embedders.forSet(set)).embed([question])
      return index.search(vector, CANDIDATES)
    } catch (err) {
      this.sets.vectorsUnavailable(loaded, err)
      return []
    }
  }
}
