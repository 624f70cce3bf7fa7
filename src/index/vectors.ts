/**
 * A live snippet set's vector index after its build: checked at start-up against the set, and
 * rebuilt from the vectors its rows hold (migration 0029), or, for a set built before they did,
 * from its rows by the embedder that built it. A hash-embedded set has none: its engine file holds
 * its vectors (loaded-set.ts), and the engine compares a question with every one of them where
 * another set's question walks the index's graph (set-vectors.ts). The index is derived data: a
 * bad one is deleted, retrieval answers from the lexical index alone meanwhile, and the file is
 * rebuilt from the stored vectors when the set is next asked (engine.ts; on PostgreSQL, by the
 * rebuild thread of `lectern serve`), or by the `rebuild-vectors` job the caller queues.
 *
 * Guarantee: the rebuilt file is written to a temp name and renamed (vector-index.ts),
 * and only while the set is still live; a stop or a failure half-way writes nothing and leaves
 * no temp file, and a set replaced meanwhile gets no file that nothing would ever remove.
 */
import type { EmbedderPool } from '../embed/pool.js'
import { vectorIndexPath } from '../install/paths.js'
import { inspectVectorFile, removeVectorIndex, scrubSidecar, VectorIndexBuilder, type ExpectedVectors } from './vector-index.js'
import type { Store } from '../store/index.js'
import type { SnippetSet, SnippetsRepository } from '../store/snippets.js'
import { embedText } from './embed-text.js'
import { hasVectorIndex } from './loaded-set.js'

/** Snippets per embedder call and per progress line. */
const BATCH = 256

/** Stored vectors read at a time: 4,096 of 1,024 dimensions are 16 MB. */
const VECTOR_PAGE = 4096

/**
 * The set's vector index built from the vectors its rows hold, a page at a time, without the
 * embedder; undefined when a row holds none, or one of another dimension (a set built before
 * vectors were stored).
 */
export async function indexFromStoredVectors(snippets: Pick<SnippetsRepository, 'vectorPage'>, set: SnippetSet): Promise<VectorIndexBuilder | undefined> {
  const builder = new VectorIndexBuilder(set.dimensions)
  for (let after = 0; ; ) {
    const page = await snippets.vectorPage(set.pk, after, VECTOR_PAGE)
    if (page.length === 0) return builder
    if (page.some((row) => row.vector?.length !== set.dimensions)) return undefined
    builder.add(page.map((row) => row.pk), page.map((row) => row.vector!))
    after = page[page.length - 1]!.pk
  }
}

/** What the set's vector index file must hold. */
export async function expectedVectors(store: Store, set: SnippetSet): Promise<ExpectedVectors> {
  return { dimensions: set.dimensions, count: await store.snippets.count(set.pk), embedder: { provider: set.embedProvider, model: set.embedModel } }
}

/** Whether every row of the set holds its vector. */
export async function hasStoredVectors(store: Store, set: SnippetSet): Promise<boolean> {
  return !(await store.snippets.lacksVectors(set.pk, set.dimensions))
}

/**
 * Deletes the vector index of every live set it cannot serve (missing, another dimension or
 * count, damaged), telling `onDiscarded` why; returns the pks of those sets. A sidecar that holds
 * more than its fields (an API key, written by earlier builds) is rewritten on the way.
 */
export async function discardBadVectorIndexes(store: Store, onDiscarded: (set: SnippetSet, problem: string) => Promise<void> | void): Promise<number[]> {
  const discarded: number[] = []
  for (const set of (await store.snippets.setsWithStatus('live')).filter(hasVectorIndex)) {
    const file = vectorIndexPath(store.paths, set.pk)
    scrubSidecar(file)
    const problem = inspectVectorFile(file, await expectedVectors(store, set))
    if (!problem) continue
    removeVectorIndex(file)
    await onDiscarded(set, problem)
    discarded.push(set.pk)
  }
  return discarded
}

export interface VectorRebuild {
  store: Store
  embedders: Pick<EmbedderPool, 'forSet'>
  signal?: AbortSignal
  progress?: (message: string) => void
  /** Called in the step that writes the new file: drop what the process caches of the old one. */
  onRebuilt?: (setPk: number) => void
}

/**
 * Writes a live set's vector index from the vectors its rows hold; for a set built before they
 * did, re-embeds its rows with the embedder that built the set and stores the vectors with them,
 * so that no rebuild calls the embedder again. Returns how many vectors were written, or
 * undefined when the set is not live (any more) or has no vector index (a rebuild queued by a
 * version that built one for hash-embedded sets).
 */
export async function rebuildVectorIndex(work: VectorRebuild, setPk: number): Promise<number | undefined> {
  const { store, signal } = work
  const set = await liveSet(store, setPk)
  if (!set || !hasVectorIndex(set)) return undefined
  let index = await indexFromStoredVectors(store.snippets, set)
  if (index) work.progress?.(`read the ${index.size} stored vectors`)
  else {
    const embedder = await work.embedders.forSet(set)
    const snippets = await store.snippets.allOfSet(setPk)
    index = new VectorIndexBuilder(set.dimensions)
    for (let i = 0; i < snippets.length; i += BATCH) {
      signal?.throwIfAborted()
      const batch = snippets.slice(i, i + BATCH)
      const vectors = await embedder.embed(batch.map(embedText), signal)
      index.add(batch.map((s) => s.pk), vectors)
      await store.snippets.setVectors(setPk, batch.map((s, j) => ({ pk: s.pk, vector: vectors[j]! })))
      work.progress?.(`re-embedded ${Math.min(i + BATCH, snippets.length)} of ${snippets.length} snippets`)
    }
  }
  signal?.throwIfAborted()
  // From here to the file in place nothing awaits: the set cannot be swept in between.
  if (!await liveSet(store, setPk)) return undefined
  index.write(vectorIndexPath(store.paths, setPk), { provider: set.embedProvider, model: set.embedModel })
  work.onRebuilt?.(setPk)
  return index.size
}

async function liveSet(store: Store, setPk: number): Promise<SnippetSet | undefined> {
  const set = await store.snippets.set(setPk)
  return set?.status === 'live' ? set : undefined
}
