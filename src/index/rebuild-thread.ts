/**
 * The thread that rebuilds engine files (rebuilder.ts): it reads a set's rows through a
 * read-only connection of its own and writes the set's file, so the serving thread only reads
 * the finished file. Compiled JavaScript only, like the job thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openConnection } from '../store/db.js'
import { createSnippetsRepository } from '../store/snippets.js'
import { engineFileKind, writeEngineFile } from './loaded-set.js'

export interface RebuildThreadData {
  database: string
}

/** A request: rebuild the engine file of set `setPk` at `file`. */
export interface RebuildRequest {
  id: number
  setPk: number
  file: string
}

export type RebuildReply = { id: number; ok: true } | { id: number; ok: false; error: string }

const { database } = workerData as RebuildThreadData
const snippets = createSnippetsRepository(openConnection(database, { readonly: true }))

parentPort!.on('message', (request: RebuildRequest) => {
  let reply: RebuildReply
  try {
    // Read now, not when asked: the set may have been replaced, or re-embedded, while it waited.
    const set = snippets.set(request.setPk)
    if (set?.status !== 'live') throw new Error(`snippet set ${request.setPk} is no longer live`)
    writeEngineFile(request.file, snippets.allOfSet(request.setPk), engineFileKind(set))
    reply = { id: request.id, ok: true }
  } catch (err) {
    reply = { id: request.id, ok: false, error: err instanceof Error ? err.message : String(err) }
  }
  parentPort!.postMessage(reply)
})
