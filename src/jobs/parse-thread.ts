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
 * the job's signal ends the task at once. The thread runs one task at a time, in the order asked.
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

export class ParseThread {
  private thread: Worker | undefined
  private idle: NodeJS.Timeout | undefined
  private nextId = 0
  /** The task before this one, settled: tasks run one at a time. */
  private last: Promise<unknown> = Promise.resolve()
  private readonly script: URL

  constructor(private readonly options: ParseThreadOptions) {
    this.script = options.script ?? defaultScript()
  }

  /** Runs the task on the thread; rejects with a ParseFailure, or with the signal's reason when it aborts. */
  run<K extends ParseTaskName>(task: K, input: ParseTasks[K][0], signal?: AbortSignal): Promise<ParseTasks[K][1]> {
    const result = this.last.then(() => this.runNow(task, input, signal))
    this.last = result.catch(() => {})
    return result as Promise<ParseTasks[K][1]>
  }

  /** The Parse of a job: its tasks end when the job's signal aborts. */
  forJob(signal: AbortSignal): Parse {
    return (task, input) => this.run(task, input, signal)
  }

  /** Ends the thread now; a task under way fails. */
  async close(): Promise<void> {
    clearTimeout(this.idle)
    const thread = this.thread
    this.thread = undefined
    await thread?.terminate()
  }

  private runNow(task: ParseTaskName, input: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    signal?.throwIfAborted()
    clearTimeout(this.idle)
    const thread = this.started()
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      let crash: Error | undefined
      const settle = (then: () => void) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        thread.off('message', onMessage).off('error', onError).off('exit', onExit)
        if (this.thread === thread) this.idle = setTimeout(() => void this.close(), IDLE_MS).unref()
        then()
      }
      const cutOff = (error: unknown) => {
        void this.end(thread)
        settle(() => reject(error))
      }
      const overBudget = () => cutOff(new ParseFailure(`took over the ${this.options.budgetMs / 1000} s parse budget`, true))
      let timer = setTimeout(() => cutOff(new ParseFailure(`could not be parsed: the parser did not load within ${LOAD_MS / 1000} s`, true)), LOAD_MS)
      const onAbort = () => cutOff(signal!.reason)
      const onMessage = (reply: ParseReply) => {
        if (reply.id !== id) return
        if ('started' in reply) {
          clearTimeout(timer)
          timer = setTimeout(overBudget, this.options.budgetMs)
          return
        }
        settle(() => (reply.ok ? resolve(reply.output) : reject(failureOf(reply.error))))
      }
      const onError = (err: Error) => (crash = err)
      const onExit = () => {
        if (this.thread === thread) this.thread = undefined
        settle(() => reject(crashFailure(crash)))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      thread.on('message', onMessage).on('error', onError).on('exit', onExit)
      thread.postMessage({ id, task, input } satisfies ParseRequest)
    })
  }

  private started(): Worker {
    if (this.thread) return this.thread
    const thread = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } })
    // A thread whose task is cut off may report its end after the next one started.
    thread.on('error', () => {})
    thread.unref()
    this.thread = thread
    return thread
  }

  /** Terminates the thread (a task cut off); the next task starts another. */
  private async end(thread: Worker): Promise<void> {
    if (this.thread === thread) this.thread = undefined
    await thread.terminate()
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
