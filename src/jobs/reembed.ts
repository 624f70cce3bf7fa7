/**
 * Switching the embedding provider (`lectern config set embedding.provider ...`, PUT
 * /api/settings/embedding): probe the new provider, save it, then re-embed every live snippet
 * set in the background, one `reembed` job per set. index/reembed.ts does a set's work and
 * states its guarantees: the old index serves until the new one is complete and switched in,
 * and a run cut off continues where it stopped.
 */
import { z } from 'zod'
import { createEmbedder, probeEmbedder } from '../embed/index.js'
import { saveEmbedding, type EmbedderPool } from '../embed/pool.js'
import type { EmbedderSettings } from '../embed/types.js'
import { LecternError } from '../errors.js'
import { isEmbeddedWith, reembedSet } from '../index/reembed.js'
import type { Store } from '../store/index.js'
import { REEMBED_JOB } from './kinds.js'
import type { JobHandler } from './worker.js'

const payloadSchema = z.object({ setPk: z.number().int() })

/** Queues a `reembed` job for every live set not yet embedded by the configured provider. */
export async function queueReembed(store: Store, embedders: EmbedderPool): Promise<number[]> {
  const current = await embedders.current()
  const dimensions = await current.dimensions()
  const active = new Set(
    (await store.jobs
      .list({ states: ['queued', 'running'], limit: 1000 }))
      .filter((j) => j.kind === REEMBED_JOB)
      .map((j) => (j.payload as { setPk: number }).setPk),
  )
  const queued: number[] = []
  for (const set of await store.snippets.setsWithStatus('live')) {
    if (active.has(set.pk)) continue
    if (isEmbeddedWith(set, current, dimensions)) continue
    const version = await store.libraries.versionByPk(set.versionPk)
    // No versionPk on the job: the version keeps serving and is not shown as processing.
    await store.jobs.enqueue({ kind: REEMBED_JOB, libraryPk: version?.libraryPk ?? null, payload: { setPk: set.pk } })
    queued.push(set.pk)
  }
  return queued
}

export interface EmbeddingSwitch {
  provider: string
  model: string
  dimensions: number
  queuedSets: number
}

/** Probes `settings`, saves them as the embedding provider and queues the re-embedding. */
export async function switchEmbedding(store: Store, embedders: EmbedderPool, settings: EmbedderSettings): Promise<EmbeddingSwitch> {
  const probe = createEmbedder(settings)
  // Settings the provider cannot serve (no such model, no answer at that host) are bad input to
  // the switch, refused as such with the provider's reason: nothing has changed.
  const dimensions = await probeEmbedder(probe).catch((err: unknown) => {
    throw new LecternError('validation_error', `Not switched: ${err instanceof Error ? err.message : String(err)}`, {}, { cause: err })
  })
  await saveEmbedding(store, settings)
  const queued = await queueReembed(store, embedders)
  return { provider: probe.provider, model: probe.model, dimensions, queuedSets: queued.length }
}

export function createReembedHandler(store: Store, embedders: EmbedderPool, onSwitched: (setPk: number) => void): JobHandler {
  return async (ctx) => {
    const { setPk } = payloadSchema.parse(ctx.job.payload)
    const embedder = await embedders.current()
    const result = await reembedSet({ store, embedder, signal: ctx.signal, progress: ctx.progress, onSwitched }, setPk)
    switch (result.outcome) {
      case 'not-live':
        return `set ${setPk} is no longer live; nothing to re-embed`
      case 'current':
        return `set ${setPk} is already embedded with ${embedder.provider} ${embedder.model}`
      case 'replaced':
        return `set ${setPk} was replaced while re-embedding; the new set already uses ${embedder.provider}`
      case 'switched':
        return `re-embedded ${result.snippets} snippets of set ${setPk} with ${embedder.provider} ${embedder.model}${result.resumedAt ? ` (resumed at ${result.resumedAt})` : ''}`
    }
  }
}
