/**
 * The `rebuild-vectors` job: at start-up every live set's vector index is checked against its
 * set, a bad one is deleted (retrieval answers from BM25 alone meanwhile) and this job rebuilds
 * it from the set's rows (index/vectors.ts does the work).
 */
import { z } from 'zod'
import type { EmbedderPool } from '../embed/pool.js'
import { discardBadVectorIndexes, rebuildVectorIndex } from '../index/vectors.js'
import type { Store } from '../store/index.js'
import { REBUILD_VECTORS_JOB } from './kinds.js'
import type { JobHandler } from './worker.js'

const payloadSchema = z.object({ setPk: z.number().int() })

/** Queues a rebuild for every live set whose index is bad; returns the set pks queued. */
export async function checkVectorIndexes(store: Store, log: (setPk: number, problem: string) => void): Promise<number[]> {
  return await discardBadVectorIndexes(store, async (setPk, problem) => {
    log(setPk, problem)
    await store.jobs.enqueue({ kind: REBUILD_VECTORS_JOB, payload: { setPk } })
  })
}

export function createVectorRebuildHandler(store: Store, embedders: EmbedderPool, onRebuilt: (setPk: number) => void): JobHandler {
  return async (ctx) => {
    const { setPk } = payloadSchema.parse(ctx.job.payload)
    const vectors = await rebuildVectorIndex({ store, embedders, signal: ctx.signal, progress: ctx.progress, onRebuilt }, setPk)
    if (vectors === undefined) return `set ${setPk} is no longer live, or its engine file holds its vectors; nothing to rebuild`
    return `rebuilt the vector index of set ${setPk} (${vectors} vectors)`
  }
}
