/**
 * The `rebuild-vectors` job: at start-up every live set's vector index is checked against its
 * set, a bad one is deleted (retrieval answers from BM25 alone meanwhile) and this job rebuilds
 * it from the set's rows (index/vectors.ts does the work).
 *
 * On PostgreSQL a job runs on whichever replica claims it, while the file is this replica's: a
 * set whose rows hold its vectors is left to this replica's engine, which builds the file from
 * them when the set is next asked (index/engine.ts); only a set whose vectors must be computed
 * again gets the job, which stores them for every replica.
 */
import { z } from 'zod'
import type { EmbedderPool } from '../embed/pool.js'
import { discardBadVectorIndexes, hasStoredVectors, rebuildVectorIndex } from '../index/vectors.js'
import type { Store } from '../store/index.js'
import { REBUILD_VECTORS_JOB } from './kinds.js'
import type { JobHandler } from './worker.js'

const payloadSchema = z.object({ setPk: z.number().int() })

/** Discards every live set's bad index and queues the rebuilds this replica needs (above); returns the pks of the sets discarded. */
export async function checkVectorIndexes(store: Store, log: (setPk: number, problem: string) => void): Promise<number[]> {
  return await discardBadVectorIndexes(store, async (set, problem) => {
    if (store.database.kind === 'postgres' && (await hasStoredVectors(store, set))) {
      log(set.pk, `${problem}; this replica writes it from the stored vectors when the set is first asked`)
      return
    }
    // Replicas starting together find the same set: one job re-embeds it (an embedder may be a paid API).
    if ((await store.jobs.activeOfKind(REBUILD_VECTORS_JOB)).some((job) => job.payload.setPk === set.pk)) return
    log(set.pk, `${problem}; queued a rebuild`)
    await store.jobs.enqueue({ kind: REBUILD_VECTORS_JOB, payload: { setPk: set.pk } })
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
