/**
 * A live snippet set's vector index after its build: checked at start-up against the set, and
 * rebuilt from the set's rows by the embedder that built it. A hash-embedded set has none: its
 * engine file holds its vectors (loaded-set.ts), and the engine compares a question with every
 * one of them where another set's question walks the index's graph (set-vectors.ts). The index
 * is derived data: a bad one is deleted, retrieval answers from the lexical index alone
 * meanwhile, and the caller queues the rebuild (the `rebuild-vectors` job).
 *
 * Guarantee: the rebuilt file is written to a temp name and renamed (vector-index.ts),
 * and only while the set is still live; a stop or a failure half-way writes nothing and leaves
 * no temp file, and a set replaced meanwhile gets no file that nothing would ever remove.
 */
import type { EmbedderPool } from '../embed/pool.js'
import { vectorIndexPath } from '../install/paths.js'
import { inspectVectorFile, removeVectorIndex, writeVectorIndex } from './vector-index.js'
import type { Store } from '../store/index.js'
import type { SnippetSet } from '../store/snippets.js'
import { embedText } from './embed-text.js'
import { hasVectorIndex } from './loaded-set.js'

/** Snippets per embedder call and per progress line. */
const BATCH = 256

/**
 * Deletes the vector index of every live set it cannot serve (missing, another dimension or
 * count, damaged), telling `onDiscarded` why; returns the pks of those sets.
 */
export async function discardBadVectorIndexes(store: Store, onDiscarded: (setPk: number, problem: string) => Promise<void> | void): Promise<number[]> {
  const discarded: number[] = []
  for (const set of (await store.snippets.setsWithStatus('live')).filter(hasVectorIndex)) {
    const file = vectorIndexPath(store.paths, set.pk)
    const problem = inspectVectorFile(file, { dimensions: set.dimensions, count: await store.snippets.count(set.pk) })
    if (!problem) continue
    removeVectorIndex(file)
    await onDiscarded(set.pk, problem)
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
 * Re-embeds a live set's rows with the embedder that built the set and writes its vector index.
 * Returns how many vectors were written, or undefined when the set is not live (any more) or has
 * no vector index (a rebuild queued by a version that built one for hash-embedded sets).
 */
export async function rebuildVectorIndex(work: VectorRebuild, setPk: number): Promise<number | undefined> {
  const { store, signal } = work
  const set = await liveSet(store, setPk)
  if (!set || !hasVectorIndex(set)) return undefined
  const embedder = await work.embedders.forSet(set)
  const snippets = await store.snippets.allOfSet(setPk)
  const vectors: Float32Array[] = []
  for (let i = 0; i < snippets.length; i += BATCH) {
    signal?.throwIfAborted()
    vectors.push(...(await embedder.embed(snippets.slice(i, i + BATCH).map(embedText), signal)))
    work.progress?.(`re-embedded ${Math.min(i + BATCH, snippets.length)} of ${snippets.length} snippets`)
  }
  signal?.throwIfAborted()
  // From here to the file in place nothing awaits: the set cannot be swept in between.
  if (!await liveSet(store, setPk)) return undefined
  writeVectorIndex(vectorIndexPath(store.paths, setPk), { provider: set.embedProvider, model: set.embedModel }, set.dimensions, snippets.map((s) => s.pk), vectors)
  work.onRebuilt?.(setPk)
  return snippets.length
}

async function liveSet(store: Store, setPk: number): Promise<SnippetSet | undefined> {
  const set = await store.snippets.set(setPk)
  return set?.status === 'live' ? set : undefined
}
