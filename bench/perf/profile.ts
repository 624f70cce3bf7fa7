/**
 * Where one /v2/context request spends its time, in-process: the steps of
 * `Retriever.getContext` + `renderTextBuffer` (the route's) replayed through the same public functions, each timed
 * with performance.now(), then the real `getContext` + `renderTextBuffer` timed whole for comparison.
 */
import { ANONYMOUS } from '../../src/library/access.js'
import { engineFileKind, loadSet, type LoadedSet } from '../../src/index/loaded-set.js'
import { engineFilePath } from '../../src/install/paths.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { resolveConfig } from '../../src/config.js'
import { DEFAULT_TOKENS, packSnippets } from '../../src/search/budget.js'
import { CANDIDATES } from '../../src/search/context.js'
import { rescoreByHashSimilarity } from '../../src/search/fusion.js'
import { renderTextBuffer } from '../../src/index/render.js'
import { resolveLibraryVersion } from '../../src/search/resolve.js'
import { questionTerms } from '../../src/text/terms.js'

export interface ProfileRequest {
  libraryId: string
  question: string
}

export interface ProfileResult {
  requests: number
  /** Mean µs per request for each step, in pipeline order. */
  parts: Array<{ name: string; us: number }>
  /** Mean µs of the real Retriever.getContext + renderTextBuffer over the same requests. */
  endToEndUs: number
  /** Mean candidates ranked vs snippets the packer kept. */
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
    const caches: Caches = { sets: new Map() }
    // An untimed pass first: indexes built and mapped, SQLite pages cached, as on a warm server.
    for (const request of requests) await replay(runtime, caches, new PartTimer(), request)
    const timer = new PartTimer()
    let fetched = 0
    let packed = 0
    for (const request of requests) {
      const counts = await replay(runtime, caches, timer, request)
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

interface Caches {
  sets: Map<number, LoadedSet>
}

/** The steps of Retriever.getContext (hash-embedded sets) and the route's renderTextBuffer, one timer each. */
async function replay(runtime: Runtime, caches: Caches, t: PartTimer, request: ProfileRequest) {
  const { store, embedders } = runtime
  const { library, setPk } = await t.timeAsync('resolve library + version', () => resolveLibraryVersion(store.libraries, request.libraryId, ANONYMOUS))
  const set = await t.timeAsync('snippet set row', async () => (await store.snippets.set(setPk))!)
  const terms = t.time('question terms', () => questionTerms(request.question))
  const loaded = await t.timeAsync('loaded set (cache)', async () => {
    let hit = caches.sets.get(setPk)
    if (!hit) {
      hit = await loadSet(setPk, await store.snippets.headsOfSet(setPk), engineFileKind(set), engineFilePath(store.paths, setPk), () => store.snippets.allOfSet(setPk))
      caches.sets.set(setPk, hit)
    }
    return hit
  })
  const lexical = t.time('lexical search (BM25F)', () => loaded.lexical.search(terms, CANDIDATES))
  const embedder = await t.timeAsync('embedder lookup (forSet)', () => embedders.forSet(set))
  const [vector] = await t.timeAsync('query embedding', () => embedder.embed([request.question]))
  const vectors = loaded.vectors!
  const ranked = t.time('fusion (cosines of the lexical candidates)', () => rescoreByHashSimilarity(lexical, vectors.similarities(vector, lexical.map((hit) => hit.doc))))
  const picked = t.time('packing (packSnippets)', () => {
    const candidates = ranked.map((r) => ({ doc: r.doc, score: r.score, tokens: loaded.snippets.tokens(r.doc) }))
    return packSnippets(candidates, DEFAULT_TOKENS, (a, b) => loaded.lexical.nearDuplicates(a.doc, b.doc))
  })
  const snippets = t.time('the packed snippets (SetSnippets.at)', () => picked.map((p) => loaded.snippets.at(p.doc)))
  t.time('rendering (renderTextBuffer)', () => renderTextBuffer(snippets, library.rules))
  return { fetched: ranked.length, packed: picked.length }
}

async function timeEndToEnd(runtime: Runtime, requests: ProfileRequest[]): Promise<number> {
  const run = async () => {
    for (const request of requests) {
      const answer = await runtime.retriever.getContext({ libraryId: request.libraryId, query: request.question, tokens: DEFAULT_TOKENS, caller: ANONYMOUS })
      renderTextBuffer(answer.snippets, answer.library.rules)
    }
  }
  // The retriever keeps its own index cache: fill it before timing, like the replay's warm pass.
  await run()
  const started = performance.now()
  await run()
  return performance.now() - started
}
