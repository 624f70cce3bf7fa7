/**
 * The thread that rebuilds a set's derived files (rebuilder.ts): it reads the set's rows through a
 * connection of its own (read-only on SQLite), and either encodes and writes the set's engine
 * file, handing the bytes to the serving thread, which only decodes them; or builds the set's
 * vector index from the vectors its rows hold and writes it, for the serving thread to map.
 * Compiled JavaScript only, like the job thread.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { connectPostgres } from '../store/postgres-sql.js'
import { createSnippetsRepository, openReadOnlySnippets, type SnippetSet } from '../store/snippets.js'
import { encodeEngineFile, engineFileKind, writeFileAtomically } from './loaded-set.js'
import { indexFromStoredVectors } from './vectors.js'

/** Where the thread reads rows: the SQLite file, or the PostgreSQL database of the install. */
export type RebuildDatabase = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string }

export interface RebuildThreadData {
  database: RebuildDatabase
}

/** A request: rebuild the engine file, or write the vector index, of set `setPk` at `file`. */
export interface RebuildRequest {
  id: number
  what: 'engine-file' | 'vector-index'
  setPk: number
  file: string
}

/**
 * An engine file's bytes, also when they could not be written (a full or read-only disk): the
 * serving thread loads the set from them either way, and the next load rebuilds the file again.
 * A vector index: how many vectors it holds, or none when a row of the set holds no vector.
 */
export type RebuildReply =
  | { id: number; ok: true; bytes: ArrayBuffer; writeError?: string }
  | { id: number; ok: true; vectors: number | null }
  | { id: number; ok: false; error: string }

const { database } = workerData as RebuildThreadData
// Two connections at most: the thread does one thing at a time.
const snippets = database.kind === 'sqlite' ? openReadOnlySnippets(database.file) : createSnippetsRepository(connectPostgres(database.url, { max: 2 }))

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err))

parentPort!.on('message', (request: RebuildRequest) => void (request.what === 'engine-file' ? rebuildEngineFile(request) : writeVectorIndex(request)).catch((err: unknown) => parentPort!.postMessage({ id: request.id, ok: false, error: messageOf(err) } satisfies RebuildReply)))

/** Read when the request is taken, not when it was made: the set may have been replaced, or re-embedded, while it waited. */
async function liveSet(setPk: number): Promise<SnippetSet> {
  const set = await snippets.set(setPk)
  if (set?.status !== 'live') throw new Error(`snippet set ${setPk} is no longer live`)
  return set
}

async function rebuildEngineFile(request: RebuildRequest): Promise<void> {
  const set = await liveSet(request.setPk)
  const bytes = encodeEngineFile(await snippets.allOfSet(request.setPk), engineFileKind(set))
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

async function writeVectorIndex(request: RebuildRequest): Promise<void> {
  const set = await liveSet(request.setPk)
  const index = await indexFromStoredVectors(snippets, set)
  // Written only while the set is live: a set swept meanwhile gets no file that nothing would remove.
  if (index) {
    await liveSet(request.setPk)
    index.write(request.file, { provider: set.embedProvider, model: set.embedModel })
  }
  parentPort!.postMessage({ id: request.id, ok: true, vectors: index ? index.size : null } satisfies RebuildReply)
}
