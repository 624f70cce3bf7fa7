/**
 * Rebuilding a set's engine file off the serving thread. A set whose file is missing or does not
 * match its rows (every set after a restore, whose files are removed; a file damaged on disk) is
 * rebuilt from its rows: 80 to 120 ms per 1,000 snippets of tokenizing, rendering and embedding,
 * which on the serving thread would hold every other request behind the one that asked for it.
 * The rebuild runs on a thread of its own; the request that needs the set waits for it, the
 * others are served meanwhile. One thread, started at the first rebuild, one set at a time
 * (SetEngine asks once per set, however many requests wait for it).
 *
 * The thread runs compiled JavaScript (rebuild-thread.js beside this file), so only a process
 * started from dist/ uses it (`lectern serve`); others rebuild on their own thread (engine.ts).
 */
import { Worker } from 'node:worker_threads'
import type { RebuildReply, RebuildRequest, RebuildThreadData } from './rebuild-thread.js'

export interface Rebuilt {
  bytes: Buffer
  /** Why the file could not be written (a full or read-only disk); the next load rebuilds it again. */
  writeError?: string
}

export class EngineFileRebuilder {
  private thread: Worker | undefined
  /** Once closed, a rebuild is refused, and one under way fails. */
  closed = false
  private nextId = 0
  private readonly pending = new Map<number, { resolve(built: Rebuilt): void; reject(err: Error): void }>()

  constructor(
    private readonly database: string,
    /** The thread's script; tests give another. */
    private readonly script: URL = new URL('./rebuild-thread.js', import.meta.url),
  ) {}

  /** Rebuilds the set's engine file: its bytes, written to `file` unless `writeError` says why not; rejects if the thread could not build them. */
  rebuild(setPk: number, file: string): Promise<Rebuilt> {
    if (this.closed) return Promise.reject(new Error('the engine file thread is closed'))
    return new Promise<Rebuilt>((resolve, reject) => {
      const id = this.nextId++
      this.pending.set(id, { resolve, reject })
      const request: RebuildRequest = { id, setPk, file }
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
      if (reply.ok) waiting?.resolve({ bytes: Buffer.from(reply.bytes), writeError: reply.writeError })
      else waiting?.reject(new Error(reply.error))
    })
    const failed = (err: Error) => {
      if (this.thread === thread) this.thread = undefined
      for (const waiting of this.pending.values()) waiting.reject(err)
      this.pending.clear()
    }
    thread.on('error', failed)
    thread.on('exit', (code) => failed(new Error(`the engine file thread exited with code ${code}`)))
    this.thread = thread
    return thread
  }
}
