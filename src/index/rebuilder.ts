/**
 * Rebuilding a set's derived files off the serving thread. A set whose engine file is missing or
 * does not match its rows (every set after a restore, whose files are removed; a file damaged on
 * disk; on PostgreSQL, a set another replica built) is rebuilt from its rows: 80 to 120 ms per
 * 1,000 snippets of tokenizing, rendering and embedding, which on the serving thread would hold
 * every other request behind the one that asked for it. On PostgreSQL a set of a real embedder
 * also needs its vector index written from the vectors its rows hold (usearch builds it
 * synchronously, about as long as the ingest's own indexing took). Both run on a thread of their
 * own; the request that needs the set waits for it, the others are served meanwhile. One thread,
 * started at the first rebuild, one set at a time (SetEngine asks once per set, however many
 * requests wait for it).
 *
 * The thread runs compiled JavaScript (rebuild-thread.js beside this file), so only a process
 * started from dist/ uses it (`lectern serve`); others rebuild on their own thread (engine.ts).
 */
import { Worker } from 'node:worker_threads'
import type { RebuildDatabase, RebuildReply, RebuildRequest, RebuildThreadData } from './rebuild-thread.js'

export interface Rebuilt {
  bytes: Buffer
  /** Why the file could not be written (a full or read-only disk); the next load rebuilds it again. */
  writeError?: string
}

export class SetFileRebuilder {
  private thread: Worker | undefined
  /** Once closed, a rebuild is refused, and one under way fails. */
  closed = false
  private nextId = 0
  private readonly pending = new Map<number, { resolve(reply: RebuildReply & { ok: true }): void; reject(err: Error): void }>()

  constructor(
    private readonly database: RebuildDatabase,
    /** The thread's script; tests give another. */
    private readonly script: URL = new URL('./rebuild-thread.js', import.meta.url),
  ) {}

  /** Rebuilds the set's engine file: its bytes, written to `file` unless `writeError` says why not; rejects if the thread could not build them. */
  async rebuild(setPk: number, file: string): Promise<Rebuilt> {
    const reply = await this.ask('engine-file', setPk, file)
    if (!('bytes' in reply)) throw new Error('the rebuild thread answered an engine file without its bytes')
    return { bytes: Buffer.from(reply.bytes), writeError: reply.writeError }
  }

  /**
   * Writes the set's vector index to `file` from the vectors its rows hold: how many it holds, or
   * undefined (nothing written) when a row holds none. Rejects when the set is no longer live or
   * the file could not be written.
   */
  async writeVectorIndex(setPk: number, file: string): Promise<number | undefined> {
    const reply = await this.ask('vector-index', setPk, file)
    if (!('vectors' in reply)) throw new Error('the rebuild thread answered a vector index without its count')
    return reply.vectors ?? undefined
  }

  private ask(what: RebuildRequest['what'], setPk: number, file: string): Promise<RebuildReply & { ok: true }> {
    if (this.closed) return Promise.reject(new Error('the rebuild thread is closed'))
    return new Promise((resolve, reject) => {
      const id = this.nextId++
      this.pending.set(id, { resolve, reject })
      const request: RebuildRequest = { id, what, setPk, file }
      const thread = this.started()
      // Busy, it keeps the process alive until it answers; idle, it does not.
      thread.ref()
      thread.postMessage(request)
    })
  }

  async close(): Promise<void> {
    this.closed = true
    const thread = this.thread
    this.thread = undefined
    await thread?.terminate()
  }

  private started(): Worker {
    if (this.thread) return this.thread
    const data: RebuildThreadData = { database: this.database }
    const thread = new Worker(this.script, { workerData: data })
    thread.on('message', (reply: RebuildReply) => {
      const waiting = this.pending.get(reply.id)
      this.pending.delete(reply.id)
      if (this.pending.size === 0) thread.unref()
      if (reply.ok) waiting?.resolve(reply)
      else waiting?.reject(new Error(reply.error))
    })
    const failed = (err: Error) => {
      if (this.thread === thread) this.thread = undefined
      for (const waiting of this.pending.values()) waiting.reject(err)
      this.pending.clear()
    }
    thread.on('error', failed)
    thread.on('exit', (code) => failed(new Error(`the rebuild thread exited with code ${code}`)))
    this.thread = thread
    return thread
  }
}
