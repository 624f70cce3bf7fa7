/**
 * Switching the embedding provider (`lectern config set embedding.provider ...`, PUT
 * /api/settings/embedding): probe the new provider, save it, then re-embed every live snippet
 * set in the background, one `reembed` job per set.
 *
 * Guarantees: a set keeps serving from its old index until its new one is complete; the new
 * index is written beside it (`set-<pk>.usearch.next`) and switched in one synchronous step
 * (rename the files, update the set's provider/model/dimensions, drop the cached index), so
 * in this process no query sees a new file with the old model or the reverse. Progress is
 * kept per set (`set-<pk>.reembed.f32` holds the vectors done so far, `.json` how many and for
 * which embedder): a job that fails half-way, or is cut off, continues where it stopped when
 * it runs again, and a provider switch in between starts that set afresh.
 */
import fs from 'node:fs'
import { z } from 'zod'
import { createEmbedder, probeEmbedder } from '../embed/index.js'
import { saveEmbedding, type EmbedderPool } from '../embed/pool.js'
import type { Embedder, EmbedderSettings } from '../embed/types.js'
import { vectorIndexPath } from '../paths.js'
import { writeVectorIndex } from '../search/vector-index.js'
import type { Store } from '../store/index.js'
import { embedText } from '../index/build.js'
import { REEMBED_JOB } from './kinds.js'
import type { JobHandler } from './worker.js'

const payloadSchema = z.object({ setPk: z.number().int() })
/** Snippets per provider request and per saved step of progress. */
const BATCH = 64

interface Progress {
  target: string
  dimensions: number
  done: number
}

const progressFiles = (store: Store, setPk: number) => {
  const base = vectorIndexPath(store.paths, setPk)
  return { vectors: `${base}.reembed.f32`, meta: `${base}.reembed.json`, next: `${base}.next` }
}

const targetOf = (e: Embedder, dimensions: number) => `${e.provider}|${e.model}|${dimensions}`

function readProgress(file: string): Progress | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Progress
  } catch {
    return undefined
  }
}

function clearProgress(store: Store, setPk: number): void {
  const files = progressFiles(store, setPk)
  for (const f of [files.vectors, files.meta, files.next, `${files.next}.json`]) fs.rmSync(f, { force: true })
}

/** Queues a `reembed` job for every live set not yet embedded by the configured provider. */
export async function queueReembed(store: Store, embedders: EmbedderPool): Promise<number[]> {
  const current = embedders.current()
  const dimensions = await current.dimensions()
  const active = new Set(
    store.jobs
      .list({ states: ['queued', 'running'], limit: 1000 })
      .filter((j) => j.kind === REEMBED_JOB)
      .map((j) => (j.payload as { setPk: number }).setPk),
  )
  const queued: number[] = []
  for (const set of store.snippets.setsWithStatus('live')) {
    if (active.has(set.pk)) continue
    if (set.embedProvider === current.provider && set.embedModel === current.model && set.dimensions === dimensions) continue
    const version = store.libraries.versionByPk(set.versionPk)
    // No versionPk on the job: the version keeps serving and is not shown as processing.
    store.jobs.enqueue({ kind: REEMBED_JOB, libraryPk: version?.libraryPk ?? null, payload: { setPk: set.pk } })
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
  const dimensions = await probeEmbedder(probe)
  saveEmbedding(store, settings)
  const queued = await queueReembed(store, embedders)
  return { provider: probe.provider, model: probe.model, dimensions, queuedSets: queued.length }
}

export function createReembedHandler(store: Store, embedders: EmbedderPool, onSwitched: (setPk: number) => void): JobHandler {
  return async (ctx) => {
    const { setPk } = payloadSchema.parse(ctx.job.payload)
    const set = store.snippets.set(setPk)
    if (!set || set.status !== 'live') {
      clearProgress(store, setPk)
      return `set ${setPk} is no longer live; nothing to re-embed`
    }
    const embedder = embedders.current()
    const dimensions = await embedder.dimensions()
    if (set.embedProvider === embedder.provider && set.embedModel === embedder.model && set.dimensions === dimensions) {
      clearProgress(store, setPk)
      return `set ${setPk} is already embedded with ${embedder.provider} ${embedder.model}`
    }
    const files = progressFiles(store, setPk)
    const target = targetOf(embedder, dimensions)
    const saved = readProgress(files.meta)
    let done = saved?.target === target ? saved.done : 0
    // Rows appended after the last saved count (a crash between the two writes) are dropped.
    fs.writeFileSync(files.vectors, '', { flag: 'a' })
    fs.truncateSync(files.vectors, done * dimensions * 4)
    const snippets = store.snippets.allOfSet(setPk)
    if (done > snippets.length) done = 0
    const resumed = done
    for (let i = done; i < snippets.length; i += BATCH) {
      const batch = snippets.slice(i, i + BATCH)
      const vectors = await embedder.embed(batch.map(embedText), ctx.signal)
      const rows = Buffer.alloc(vectors.length * dimensions * 4)
      vectors.forEach((v, j) => {
        if (v.length !== dimensions) throw new Error(`vector of ${v.length} dimensions, expected ${dimensions}`)
        Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(rows, j * dimensions * 4)
      })
      fs.appendFileSync(files.vectors, rows)
      done = i + batch.length
      fs.writeFileSync(files.meta, JSON.stringify({ target, dimensions, done } satisfies Progress))
      ctx.progress(`re-embedded ${done} of ${snippets.length} snippets with ${embedder.provider} ${embedder.model}`)
    }
    const raw = fs.readFileSync(files.vectors)
    const all = snippets.map((_, i) => new Float32Array(raw.buffer.slice(raw.byteOffset + i * dimensions * 4, raw.byteOffset + (i + 1) * dimensions * 4)))
    writeVectorIndex(files.next, embedder, dimensions, snippets.map((s) => s.pk), all)
    if (store.snippets.set(setPk)?.status !== 'live') {
      clearProgress(store, setPk)
      return `set ${setPk} was replaced while re-embedding; the new set already uses ${embedder.provider}`
    }
    const live = vectorIndexPath(store.paths, setPk)
    fs.renameSync(files.next, live)
    fs.renameSync(`${files.next}.json`, `${live}.json`)
    store.snippets.setEmbedding(setPk, { provider: embedder.provider, model: embedder.model, dimensions })
    onSwitched(setPk)
    clearProgress(store, setPk)
    return `re-embedded ${snippets.length} snippets of set ${setPk} with ${embedder.provider} ${embedder.model}${resumed ? ` (resumed at ${resumed})` : ''}`
  }
}
