/**
 * The thread that rebuilds engine files (rebuilder.ts): it reads a set's rows through a
 * read-only connection of its own, encodes and writes the set's file, and hands the bytes to the
 * serving thread, which only decodes them. Compiled JavaScript only, like the job thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openReadOnlySnippets } from '../store/snippets.js'
import { encodeEngineFile, engineFileKind, writeFileAtomically } from './loaded-set.js'

export interface RebuildThreadData {
  database: string
}

/** A request: rebuild the engine file of set `setPk` at `file`. */
export interface RebuildRequest {
  id: number
  setPk: number
  file: string
}

/**
 * The file's bytes, also when they could not be written (a full or read-only disk): the serving
 * thread loads the set from them either way, and the next load rebuilds the file again.
 */
export type RebuildReply = { id: number; ok: true; bytes: ArrayBuffer; writeError?: string } | { id: number; ok: false; error: string }

const { database } = workerData as RebuildThreadData
const snippets = openReadOnlySnippets(database)

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err))

parentPort!.on('message', (request: RebuildRequest) => void rebuild(request))

async function rebuild(request: RebuildRequest): Promise<void> {
  let bytes: Buffer
  try {
    // Read now, not when asked: the set may have been replaced, or re-embedded, while it waited.
    const set = await snippets.set(request.setPk)
    if (set?.status !== 'live') throw new Error(`snippet set ${request.setPk} is no longer live`)
    bytes = encodeEngineFile(await snippets.allOfSet(request.setPk), engineFileKind(set))
  } catch (err) {
    parentPort!.postMessage({ id: request.id, ok: false, error: messageOf(err) } satisfies RebuildReply)
    return
  }
  let writeError: string | undefined
  try {
    writeFileAtomically(request.file, bytes)
  } catch (err) {
    writeError = messageOf(err)
  }
  // Handed over, not copied: a buffer of its own, whole.
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : Uint8Array.from(bytes).buffer
  const reply: RebuildReply = { id: request.id, ok: true, bytes: owned, ...(writeError ? { writeError } : {}) }
  parentPort!.postMessage(reply, [owned])
}
