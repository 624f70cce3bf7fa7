/**
 * Re-embedding a live snippet set with another embedder and switching it to the new vectors
 * (the `reembed` job queued when the embedding provider changes).
 *
 * Guarantees: the set keeps serving from its old index until its new one is complete; the new
 * index is written beside it (`set-<pk>.usearch.next`) and switched in one step (store the new
 * vectors with the rows, rename the files, record the set's provider/model/dimensions,
 * `onSwitched` drops the cached index), so in this process no query sees a new file with the old model or the reverse. A
 * switch to the hash embedder removes the index instead: the engine file holds those vectors.
 * Progress is kept per set (`set-<pk>.usearch.reembed.f32` holds the vectors done so far,
 * `.json` how many and for which embedder): a run that fails half-way, is stopped or is cut off
 * continues where it stopped when it runs again, and another embedder in between starts that
 * set afresh. A failed write is taken back to the last saved batch and a new index not switched
 * in is removed (on a full disk the error is `disk_full`); what is left goes with the set
 * (set-files.ts).
 */
import fs from 'node:fs'
import { asDiskFull } from '../install/disk-full.js'
import type { Embedder } from '../embed/types.js'
import { engineFilePath, reembedPaths, vectorIndexPath } from '../install/paths.js'
import { removeVectorIndex, writeVectorIndex } from './vector-index.js'
import type { Store } from '../store/index.js'
import type { SnippetSet } from '../store/snippets.js'
import { embedText } from './embed-text.js'
import { engineFileKind, hasVectorIndex, writeEngineFile } from './loaded-set.js'
import { removeReembedFiles } from './set-files.js'

/** Snippets per embedder call and per saved step of progress. */
const BATCH = 64

interface Progress {
  target: string
  dimensions: number
  done: number
}

export interface Reembedding {
  store: Store
  /** The embedder to switch to. */
  embedder: Embedder
  signal?: AbortSignal
  progress?: (message: string) => void
  /** Called in the step that switches the set: drop what the process caches of its old index. */
  onSwitched?: (setPk: number) => void
}

export type ReembedOutcome =
  /** The set is not live: there is nothing to re-embed. */
  | { outcome: 'not-live' }
  /** The set already uses this embedder. */
  | { outcome: 'current' }
  /** The set stopped being live while it was re-embedded: a newer set replaced it. */
  | { outcome: 'replaced' }
  /** The set now serves the new vectors; `resumedAt` snippets were embedded by earlier runs. */
  | { outcome: 'switched'; snippets: number; resumedAt: number }

/** Whether the set's vectors come from this embedder at this dimension. */
export function isEmbeddedWith(set: SnippetSet, embedder: Embedder, dimensions: number): boolean {
  return set.embedProvider === embedder.provider && set.embedModel === embedder.model && set.dimensions === dimensions
}

const targetOf = (e: Embedder, dimensions: number) => `${e.provider}|${e.model}|${dimensions}`
const isLive = async (store: Store, setPk: number) => (await store.snippets.set(setPk))?.status === 'live'

function readProgress(file: string): Progress | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Progress
  } catch {
    return undefined
  }
}

export async function reembedSet(work: Reembedding, setPk: number): Promise<ReembedOutcome> {
  const { store, embedder, signal } = work
  const set = await store.snippets.set(setPk)
  if (!set || set.status !== 'live') {
    removeReembedFiles(store.paths, setPk)
    return { outcome: 'not-live' }
  }
  const dimensions = await embedder.dimensions()
  if (isEmbeddedWith(set, embedder, dimensions)) {
    removeReembedFiles(store.paths, setPk)
    return { outcome: 'current' }
  }
  const files = reembedPaths(store.paths, setPk)
  const target = targetOf(embedder, dimensions)
  const rowBytes = dimensions * 4
  const snippets = await store.snippets.allOfSet(setPk)
  const saved = readProgress(files.meta)
  let done = saved?.target === target && saved.done <= snippets.length ? saved.done : 0
  const resumedAt = done
  try {
    // Rows appended after the last saved count (a crash between the two writes) are dropped.
    fs.writeFileSync(files.vectors, '', { flag: 'a' })
    fs.truncateSync(files.vectors, done * rowBytes)
    for (let i = done; i < snippets.length; i += BATCH) {
      signal?.throwIfAborted()
      const batch = snippets.slice(i, i + BATCH)
      const vectors = await embedder.embed(batch.map(embedText), signal)
      // Checked in the step that writes: a set swept while the batch was embedded gets no files back.
      if (!await isLive(store, setPk)) {
        removeReembedFiles(store.paths, setPk)
        return { outcome: 'replaced' }
      }
      const rows = Buffer.alloc(vectors.length * rowBytes)
      vectors.forEach((v, j) => {
        if (v.length !== dimensions) throw new Error(`vector of ${v.length} dimensions, expected ${dimensions}`)
        Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(rows, j * rowBytes)
      })
      fs.appendFileSync(files.vectors, rows)
      fs.writeFileSync(files.meta, JSON.stringify({ target, dimensions, done: i + batch.length } satisfies Progress))
      done = i + batch.length
      work.progress?.(`re-embedded ${done} of ${snippets.length} snippets with ${embedder.provider} ${embedder.model}`)
    }
    signal?.throwIfAborted()
    const raw = fs.readFileSync(files.vectors)
    const all = snippets.map((_, i) => new Float32Array(raw.buffer.slice(raw.byteOffset + i * rowBytes, raw.byteOffset + (i + 1) * rowBytes)))
    const live = vectorIndexPath(store.paths, setPk)
    const switchedTo = { embedProvider: embedder.provider, dimensions }
    // The check, the switch of files and the row in one transaction: a query reads the set's
    // embedder before it or after it, never the old embedder with the new index; no sweep runs between.
    const switched = await store.transaction(async () => {
      if (!(await isLive(store, setPk))) return false
      // The rows first: should storing them fail, no file has been switched yet.
      await store.snippets.setVectors(setPk, hasVectorIndex(switchedTo) ? snippets.map((s, i) => ({ pk: s.pk, vector: all[i]! })) : null)
      if (hasVectorIndex(switchedTo)) {
        writeVectorIndex(files.next, embedder, dimensions, snippets.map((s) => s.pk), all)
        fs.renameSync(files.next, live)
        fs.renameSync(`${files.next}.json`, `${live}.json`)
      } else {
        removeVectorIndex(live)
      }
      await store.snippets.setEmbedding(setPk, { provider: embedder.provider, model: embedder.model, dimensions })
      return true
    })
    if (!switched) {
      removeReembedFiles(store.paths, setPk)
      return { outcome: 'replaced' }
    }
    try {
      // The engine file holds the hash embedder's vectors, or none: written for the new one now
      // rather than found mismatched at the next load.
      const vectors = new Map(snippets.map((s, i) => [s.pk, all[i]]))
      writeEngineFile(engineFilePath(store.paths, setPk), snippets, engineFileKind(switchedTo), vectors)
    } catch {
      // Derived data: the next load finds the file built for the other embedder and rebuilds it.
    }
    work.onSwitched?.(setPk)
  } catch (caught) {
    const err = asDiskFull(caught, 're-embedding a snippet set', store.paths.vectors)
    keepSavedProgress(files, done * rowBytes)
    throw err
  }
  removeReembedFiles(store.paths, setPk)
  return { outcome: 'switched', snippets: snippets.length, resumedAt }
}

/**
 * After a failure: the vectors file back to the rows its count names (a write cut short must not
 * hold the space, nor leave a torn row), and no new index waiting to be switched in.
 */
function keepSavedProgress(files: ReturnType<typeof reembedPaths>, bytes: number): void {
  try {
    if (fs.statSync(files.vectors).size > bytes) fs.truncateSync(files.vectors, bytes)
  } catch {
    // Nothing was saved yet, or the volume refuses even this: the next run truncates to the saved count.
  }
  removeVectorIndex(files.next)
}
