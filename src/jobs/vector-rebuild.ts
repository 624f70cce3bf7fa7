/**
 * Vector indexes are derived data. At start-up each live set's index file is checked against
 * the set (present, same dimension, one vector per snippet); a bad one is deleted, so retrieval
 * answers from BM25 alone meanwhile, and a `rebuild-vectors` job re-embeds the set's snippets.
 */
import { z } from 'zod'
import type { EmbedderPool } from '../embed/pool.js'
import { vectorIndexPath } from '../paths.js'
import { inspectVectorFile, removeVectorIndex, writeVectorIndex } from '../search/vector-index.js'
import type { Store } from '../store/index.js'
import type { SnippetSet } from '../store/snippets.js'
import { embedText } from '../index/build.js'
import { REBUILD_VECTORS_JOB } from './kinds.js'
import type { JobHandler } from './worker.js'

const payloadSchema = z.object({ setPk: z.number().int() })
const BATCH = 256

const indexProblem = (store: Store, set: SnippetSet): string | undefined =>
  inspectVectorFile(vectorIndexPath(store.paths, set.pk), { dimensions: set.dimensions, count: store.snippets.count(set.pk) })

/** Queues a rebuild for every live set whose index is bad; returns the set pks queued. */
export function checkVectorIndexes(store: Store, log: (setPk: number, problem: string) => void): number[] {
  const queued: number[] = []
  for (const set of store.snippets.setsWithStatus('live')) {
    const problem = indexProblem(store, set)
    if (!problem) continue
    log(set.pk, problem)
    removeVectorIndex(vectorIndexPath(store.paths, set.pk))
    store.jobs.enqueue({ kind: REBUILD_VECTORS_JOB, payload: { setPk: set.pk } })
    queued.push(set.pk)
  }
  return queued
}

export function createVectorRebuildHandler(store: Store, embedders: EmbedderPool, onRebuilt: (setPk: number) => void): JobHandler {
  return async (ctx) => {
    const { setPk } = payloadSchema.parse(ctx.job.payload)
    const set = store.snippets.set(setPk)
    if (!set || set.status !== 'live') return `set ${setPk} is no longer live; nothing to rebuild`
    const embedder = embedders.forSet(set)
    const snippets = store.snippets.allOfSet(setPk)
    const vectors: Float32Array[] = []
    for (let i = 0; i < snippets.length; i += BATCH) {
      vectors.push(...(await embedder.embed(snippets.slice(i, i + BATCH).map(embedText), ctx.signal)))
      ctx.progress(`re-embedded ${Math.min(i + BATCH, snippets.length)} of ${snippets.length} snippets`)
    }
    writeVectorIndex(vectorIndexPath(store.paths, setPk), { provider: set.embedProvider, model: set.embedModel }, set.dimensions, snippets.map((s) => s.pk), vectors)
    onRebuilt(setPk)
    return `rebuilt the vector index of set ${setPk} (${snippets.length} vectors)`
  }
}
