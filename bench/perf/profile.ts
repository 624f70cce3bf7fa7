/**
 * Where one /v2/context request spends its time, in-process: the steps of
 * `Retriever.getContext` + `renderText` replayed through the same public functions, each timed
 * with performance.now(), then the real `getContext` + `renderText` timed whole for comparison.
 */
import { ANONYMOUS } from '../../src/access.js'
import { vectorIndexPath } from '../../src/paths.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { resolveConfig } from '../../src/config.js'
import { DEFAULT_TOKENS, packSnippets } from '../../src/search/budget.js'
import { CANDIDATES, FTS_WEIGHTS, LEXICAL_WEIGHT, VECTOR_WEIGHT } from '../../src/search/context.js'
import { fuseRankings } from '../../src/search/fusion.js'
import { renderText } from '../../src/search/render.js'
import { resolveLibraryVersion } from '../../src/search/resolve.js'
import { matchExpression, questionTerms } from '../../src/search/terms.js'
import { VectorIndexCache, loadVectorIndex } from '../../src/search/vector-index.js'

export interface ProfileRequest {
  libraryId: string
  question: string
}

export interface ProfileResult {
  requests: number
  /** Mean µs per request for each step, in pipeline order. */
  parts: Array<{ name: string; us: number }>
  /** Mean µs of the real Retriever.getContext + renderText over the same requests. */
  endToEndUs: number
  /** Mean candidates whose token counts were read vs snippets the packer kept. */
  fetched: number
  packed: number
}

class PartTimer {
  readonly totals = new Map<string, number>()

  time<T>(name: string, step: () => T): T {
    const started = performance.now()
    const value = step()
    this.add(name, performance.now() - started)
    return value
  }

  async timeAsync<T>(name: string, step: () => Promise<T>): Promise<T> {
    const started = performance.now()
    const value = await step()
    this.add(name, performance.now() - started)
    return value
  }

  private add(name: string, ms: number): void {
    this.totals.set(name, (this.totals.get(name) ?? 0) + ms)
  }
}

export async function profileRequests(dataDir: string, requests: ProfileRequest[]): Promise<ProfileResult> {
  const runtime = await openRuntime({ config: resolveConfig({ dataDir: dataDir }).config })
  try {
    const vectors = new VectorIndexCache()
    // An untimed pass first: index files mapped and SQLite pages cached, as on a warm server.
    for (const request of requests) await replay(runtime, vectors, new PartTimer(), request)
    const timer = new PartTimer()
    let fetched = 0
    let packed = 0
    for (const request of requests) {
      const counts = await replay(runtime, vectors, timer, request)
      fetched += counts.fetched
      packed += counts.packed
    }
    const endToEndMs = await timeEndToEnd(runtime, requests)
    const perRequestUs = (ms: number) => (ms * 1000) / requests.length
    return {
      requests: requests.length,
      parts: [...timer.totals].map(([name, ms]) => ({ name, us: perRequestUs(ms) })),
      endToEndUs: perRequestUs(endToEndMs),
      fetched: fetched / requests.length,
      packed: packed / requests.length,
    }
  } finally {
    await runtime.close()
  }
}

/** The steps of Retriever.getContext/rank/vectorSearch and the route's renderText, one timer each. */
async function replay(runtime: Runtime, vectors: VectorIndexCache, t: PartTimer, request: ProfileRequest) {
  const { store, embedders } = runtime
  const { library, setPk } = t.time('resolve library + version', () => resolveLibraryVersion(store.libraries, request.libraryId, ANONYMOUS))
  const set = t.time('snippet set row', () => store.snippets.set(setPk)!)
  const match = t.time('question terms', () => matchExpression(questionTerms(request.question)))
  const lexical = t.time('FTS5 bm25 query', () => (match ? store.snippets.ftsSearch(setPk, match, CANDIDATES, FTS_WEIGHTS).map((h) => h.pk) : []))
  const load = () => loadVectorIndex(vectorIndexPath(store.paths, setPk), { dimensions: set.dimensions, count: store.snippets.count(setPk) })
  const index = t.time('vector index cache', () => vectors.get(setPk, load))
  const embedder = t.time('embedder lookup (forSet)', () => embedders.forSet(set))
  const [vector] = await t.timeAsync('query embedding', () => embedder.embed([request.question]))
  const semantic = t.time('vector search (HNSW)', () => index.search(vector, CANDIDATES).map((h) => h.pk))
  const ranked = t.time('rank fusion', () =>
    fuseRankings([
      { pks: lexical, weight: LEXICAL_WEIGHT },
      { pks: semantic, weight: VECTOR_WEIGHT },
    ]).slice(0, CANDIDATES),
  )
  const counts = t.time('token counts (tokensOf)', () => store.snippets.tokensOf(ranked.map((r) => r.pk)))
  const packed = t.time('packing (packSnippets)', () => packSnippets(counts, DEFAULT_TOKENS))
  const picked = t.time('snippet fetch (byPks, packed only)', () => store.snippets.byPks(packed.map((s) => s.pk)))
  t.time('rendering (renderText)', () => renderText(picked, library.rules))
  return { fetched: counts.length, packed: picked.length }
}

async function timeEndToEnd(runtime: Runtime, requests: ProfileRequest[]): Promise<number> {
  const run = async () => {
    for (const request of requests) {
      const answer = await runtime.retriever.getContext({ libraryId: request.libraryId, query: request.question, tokens: DEFAULT_TOKENS, caller: ANONYMOUS })
      renderText(answer.snippets, answer.library.rules)
    }
  }
  // The retriever keeps its own index cache: fill it before timing, like the replay's warm pass.
  await run()
  const started = performance.now()
  await run()
  return performance.now() - started
}
