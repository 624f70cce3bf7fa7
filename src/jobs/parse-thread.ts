/**
 * Parsing under a budget. A job's documents, web pages, source files and OpenAPI specs come from
 * whoever wrote them, and a parser can take hours on a hostile one (the MDX expression parser is
 * quadratic in nested braces) or more memory than the machine has. A flag checked between
 * documents cannot stop a parse that never returns, so every parse runs on a thread of its own
 * that is terminated when its document goes over the budget, and when the job is cancelled or
 * stopped. The document is then skipped with the reason; the job goes on with the next one.
 *
 * Guarantees: a parse ends within `budgetMs` of its start (plus the few milliseconds a
 * termination takes), whatever its input; loading the reader before it (a fresh thread on a busy
 * machine) may take LOAD_MS more; its thread never holds more than HEAP_MB of heap; an abort of
 * the job's signal ends the task at once. The thread runs one task at a time, in the order asked,
 * with up to IN_FLIGHT of them sent ahead; when one is cut off, the others are sent again to a new
 * thread.
 *
 * The thread is started at the first task and ended IDLE_MS after the last (its parsers hold
 * tens of megabytes), or at once when a task is cut off; the next task starts a new one. It runs
 * compiled JavaScript: run from the TypeScript sources (the test runner), it runs the compiled
 * copy of itself in dist/, which `npm test` builds first.
 */
import { existsSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { LecternError } from '../errors.js'
import { ParseFailure } from '../parse/failure.js'
import type { Parse, ParseTaskName, ParseTasks } from '../parse/types.js'

/** A task for the thread, and its answer (parse-thread-main.ts). */
export interface ParseRequest {
  id: number
  task: ParseTaskName
  input: unknown
}

export type ParseReply =
  | { id: number; started: true }
  | { id: number; ok: true; output: unknown }
  | { id: number; ok: false; error: { message: string; code?: string } }

/** The heap a parse may use; one over it is cut off as over budget. */
export const HEAP_MB = 512
/** An idle thread is ended after this long: the next job starts a new one in about 100 ms. */
const IDLE_MS = 30_000
/** How long a thread may take to start and load a task's reader (seconds on a busy machine); the budget starts after. */
const LOAD_MS = 60_000
/**
 * Tasks sent to the thread ahead of the one it parses: it starts the next as soon as it answers,
 * while the job's thread handles the answer, and no task waits on a round trip.
 */
const IN_FLIGHT = 4

const OWN_SCRIPT = new URL('./parse-thread-main.js', import.meta.url)

/** The thread's script: beside this module when compiled; the compiled copy when run from source. */
function defaultScript(): URL {
  if (existsSync(OWN_SCRIPT)) return OWN_SCRIPT
  return new URL(OWN_SCRIPT.href.replace(/\/src\/jobs\/parse-thread-main\.js$/, '/dist/src/jobs/parse-thread-main.js'))
}

export interface ParseThreadOptions {
  /** How long one task may run (the setting parse.budgetSeconds). */
  budgetMs: number
  /** The thread's script; tests give another. */
  script?: URL
}

/** A task asked for, until it settles. */
interface Task {
  id: number
  request: ParseRequest
  signal: AbortSignal | undefined
  onAbort: () => void
  resolve(output: unknown): void
  reject(err: unknown): void
  /** The thread said it began parsing it: its budget runs. */
  started: boolean
}

export class ParseThread {
  private thread: Worker | undefined
  /** Why the current thread ended by itself (out of memory, a crash), from its 'error' event. */
  private crash: Error | undefined
  private idle: NodeJS.Timeout | undefined
  /** The load or budget timer of the task at the head of `posted`. */
  private timer: NodeJS.Timeout | undefined
  private nextId = 0
  /** Sent to the current thread, in the order it runs them. */
  private posted: Task[] = []
  /** Not sent yet: at most IN_FLIGHT tasks wait in the thread, so a cut-off resends only those. */
  private waiting: Task[] = []
  private readonly script: URL

  constructor(private readonly options: ParseThreadOptions) {
    this.script = options.script ?? defaultScript()
  }

  /** Runs the task on the thread; rejects with a ParseFailure, or with the signal's reason when it aborts. */
  run<K extends ParseTaskName>(task: K, input: ParseTasks[K][0], signal?: AbortSignal): Promise<ParseTasks[K][1]> {
    if (signal?.aborted) return Promise.reject(signal.reason)
    return new Promise((resolve, reject) => {
      const entry: Task = { id: this.nextId++, request: { id: 0, task, input }, signal, onAbort: () => this.aborted(entry), resolve, reject, started: false }
      entry.request.id = entry.id
      signal?.addEventListener('abort', entry.onAbort, { once: true })
      this.waiting.push(entry)
      this.pump()
    }) as Promise<ParseTasks[K][1]>
  }

  /** The Parse of a job: its tasks end when the job's signal aborts. */
  forJob(signal: AbortSignal): Parse {
    return (task, input) => this.run(task, input, signal)
  }

  /** Ends the thread now; tasks under way or waiting fail. */
  async close(): Promise<void> {
    clearTimeout(this.idle)
    clearTimeout(this.timer)
    const thread = this.thread
    this.thread = undefined
    for (const entry of [...this.posted, ...this.waiting]) this.settle(entry, () => entry.reject(new ParseFailure('was not parsed: the parse thread closed', false)))
    this.posted = []
    this.waiting = []
    await thread?.terminate()
  }

  /** Sends waiting tasks while fewer than IN_FLIGHT are in the thread; an idle thread is ended after IDLE_MS. */
  private pump(): void {
    clearTimeout(this.idle)
    while (this.posted.length < IN_FLIGHT && this.waiting.length > 0) {
      const entry = this.waiting.shift()!
      this.started().postMessage(entry.request)
      this.posted.push(entry)
      if (this.posted.length === 1) this.watchHead()
    }
    if (this.posted.length === 0 && this.thread) this.idle = setTimeout(() => void this.close(), IDLE_MS).unref()
  }

  /** The head task's timer: loading its reader until it starts (LOAD_MS), then its parse (the budget). */
  private watchHead(): void {
    clearTimeout(this.timer)
    const head = this.posted[0]
    if (!head) return
    this.timer = head.started
      ? setTimeout(() => this.cutOff(head, new ParseFailure(`took over the ${this.options.budgetMs / 1000} s parse budget`, true)), this.options.budgetMs)
      : setTimeout(() => this.cutOff(head, new ParseFailure(`could not be parsed: the parser did not load within ${LOAD_MS / 1000} s`, true)), LOAD_MS)
  }

  private receive(thread: Worker, reply: ParseReply): void {
    if (thread !== this.thread) return
    const entry = this.posted.find((t) => t.id === reply.id)
    if (!entry) return
    if ('started' in reply) {
      entry.started = true
      // A task whose job was aborted while it waited in the thread is not parsed for nothing.
      if (entry.signal?.aborted) this.cutOff(entry, entry.signal.reason)
      else if (entry === this.posted[0]) this.watchHead()
      return
    }
    this.posted = this.posted.filter((t) => t !== entry)
    this.settle(entry, () => (reply.ok ? entry.resolve(reply.output) : entry.reject(failureOf(reply.error))))
    this.watchHead()
    this.pump()
  }

  /** The job of a task aborted: one waiting is dropped; one in the thread is cut off when it starts (or now, if it has). */
  private aborted(entry: Task): void {
    if (this.waiting.includes(entry)) {
      this.waiting = this.waiting.filter((t) => t !== entry)
      this.settle(entry, () => entry.reject(entry.signal!.reason))
    } else if (entry.started) {
      this.cutOff(entry, entry.signal!.reason)
    }
  }

  /** Ends the thread with its task `entry` failed; the thread's other tasks are sent again to a new one. */
  private cutOff(entry: Task, error: unknown): void {
    const thread = this.thread
    this.thread = undefined
    clearTimeout(this.timer)
    void thread?.terminate()
    const others = this.posted.filter((t) => t !== entry)
    this.posted = []
    this.settle(entry, () => entry.reject(error))
    for (const other of others) other.started = false
    this.waiting = [...others.filter((t) => !t.signal?.aborted), ...this.waiting]
    for (const other of others.filter((t) => t.signal?.aborted)) this.settle(other, () => other.reject(other.signal!.reason))
    this.pump()
  }

  private settle(entry: Task, then: () => void): void {
    entry.signal?.removeEventListener('abort', entry.onAbort)
    then()
  }

  private started(): Worker {
    if (this.thread) return this.thread
    const thread = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } })
    this.crash = undefined
    thread.on('message', (reply: ParseReply) => this.receive(thread, reply))
    thread.on('error', (err: Error) => {
      if (thread === this.thread) this.crash = err
    })
    // Ended by itself (out of memory, a crash): the task it was parsing fails, the others go to a new thread.
    thread.on('exit', () => {
      if (thread !== this.thread) return
      const head = this.posted.find((t) => t.started) ?? this.posted[0]
      if (head) this.cutOff(head, crashFailure(this.crash))
      else this.thread = undefined
    })
    thread.unref()
    this.thread = thread
    return thread
  }
}

/** A task's own failure: a LecternError (a spec that is none) keeps its code; any other is the document's. */
function failureOf(error: { message: string; code?: string }): Error {
  return error.code ? new LecternError(error.code as never, error.message) : new ParseFailure(error.message, false)
}

/** The thread ended by itself: out of memory, or a crash of a native parser. */
function crashFailure(err: Error | undefined): ParseFailure {
  if ((err as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') return new ParseFailure(`needed over ${HEAP_MB} MB of memory to parse`, true)
  return new ParseFailure(`crashed its parser (${err?.message ?? 'the parse thread exited'})`, false)
}
