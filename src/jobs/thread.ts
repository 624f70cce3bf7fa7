/**
 * The job worker on a thread of its own (`lectern serve`): ingest, re-embedding and imports
 * parse, tokenize, embed and write for seconds at a time, and on the serving thread that work
 * would hold every request behind it. The thread opens its own store connection and runs the
 * same Worker and handlers (src/jobs/handlers.ts); this side relays wake-ups and stop, takes
 * the thread's log lines into the server's log, drops cached sets the thread retired, and
 * shares the gauge of requests in flight that the thread's jobs give way to (pace.ts).
 *
 * The thread runs compiled JavaScript (worker-thread.js beside this file), so only a process
 * started from dist/ can use it; buildApp() runs the worker in-process unless told otherwise.
 */
import { Worker as Thread } from 'node:worker_threads'
import type { LecternConfig } from '../config.js'
import { RequestGauge } from './pace.js'
import type { JobRunner } from './runner.js'
import type { JobLog } from './worker.js'

export type LogLevel = 'info' | 'warn' | 'error'

/** Messages to the thread. */
export type ToThread = { type: 'start' } | { type: 'wake' } | { type: 'run-next'; id: number } | { type: 'stop' }

/** Messages from the thread. */
export type FromThread =
  | { type: 'started' }
  | { type: 'log'; level: LogLevel; obj: object; msg: string }
  | { type: 'forget-set'; setPk: number }
  | { type: 'ran'; id: number; ran: boolean }
  | { type: 'stopped' }

export interface ThreadData {
  config: LecternConfig
  /** The serving side's requests in flight (RequestGauge), which the thread's jobs give way to. */
  requests: SharedArrayBuffer
}

export interface ThreadedWorkerOptions {
  config: LecternConfig
  log: JobLog
  /** A job replaced or removed this set's files: the serving side drops what it cached. */
  forgetSet(setPk: number): void
}

export class ThreadedWorker implements JobRunner {
  private thread: Thread | undefined
  private running = false
  private exited: Promise<void> = Promise.resolve()
  private nextId = 0
  private readonly pendingRuns = new Map<number, { resolve(ran: boolean): void; reject(err: Error): void }>()
  readonly requests = new RequestGauge()

  constructor(private readonly options: ThreadedWorkerOptions) {}

  get isRunning(): boolean {
    return this.running
  }

  start(): void {
    this.ensureThread().postMessage({ type: 'start' } satisfies ToThread)
  }

  wake(): void {
    this.thread?.postMessage({ type: 'wake' } satisfies ToThread)
  }

  async drain(until: () => boolean = () => false): Promise<void> {
    const thread = this.ensureThread()
    while (!until()) {
      const id = this.nextId++
      const ran = new Promise<boolean>((resolve, reject) => this.pendingRuns.set(id, { resolve, reject }))
      thread.postMessage({ type: 'run-next', id } satisfies ToThread)
      if (!(await ran)) return
    }
  }

  async stop(): Promise<void> {
    this.running = false
    this.thread?.postMessage({ type: 'stop' } satisfies ToThread)
    await this.exited
  }

  private ensureThread(): Thread {
    if (this.thread) return this.thread
    const { config, log } = this.options
    const thread = new Thread(new URL('./worker-thread.js', import.meta.url), { workerData: { config, requests: this.requests.memory } satisfies ThreadData })
    this.thread = thread
    thread.on('message', (message: FromThread) => this.receive(thread, message))
    thread.on('error', (err) => log.error({ err }, 'the job worker thread failed; no job runs until the server restarts'))
    this.exited = new Promise((resolve) => {
      thread.once('exit', () => {
        this.running = false
        this.thread = undefined
        for (const pending of this.pendingRuns.values()) pending.reject(new Error('the job worker thread exited'))
        this.pendingRuns.clear()
        resolve()
      })
    })
    return thread
  }

  private receive(thread: Thread, message: FromThread): void {
    switch (message.type) {
      case 'started':
        this.running = true
        this.options.log.info({}, 'job worker thread started')
        return
      case 'log':
        this.options.log[message.level](message.obj, message.msg)
        return
      case 'forget-set':
        this.options.forgetSet(message.setPk)
        return
      case 'ran':
        this.pendingRuns.get(message.id)?.resolve(message.ran)
        this.pendingRuns.delete(message.id)
        return
      case 'stopped':
        // Everything the thread had to say came before this: end it without waiting on idle handles.
        void thread.terminate()
    }
  }
}
