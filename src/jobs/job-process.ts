/**
 * The job worker in a process of its own (`lectern serve`): ingest, re-embedding and imports
 * parse, tokenize, embed and write for seconds at a time, and in the serving process that work
 * would hold requests behind it. The job process opens its own store connection and runs the
 * same Worker and handlers (src/jobs/handlers.ts) at the lowest CPU priority, all its threads
 * included (priority.ts); this side relays wake-ups and stop, takes the job process's log lines
 * into the server's log, drops cached sets the jobs retired, and tells the jobs when requests are
 * in flight so that they give way (pace.ts).
 *
 * A process rather than a thread of the server: what goes wrong in a job stays there. A native
 * crash in a parser or an index, an abort, or a heap a huge document exhausts ends the job
 * process; the server keeps answering, fails that job with the reason and starts a new job
 * process. The clients' p99 during an ingest is the same either way (bench/RESULTS.md, the eighth
 * session on issue 11); the job process costs about 90 MB of memory while idle.
 *
 * The job process runs compiled JavaScript (job-process-main.js beside this file), so only a
 * process started from dist/ can use it; buildApp() runs the worker in-process unless told
 * otherwise. It stays in the server's session: where Linux groups processes by session for
 * scheduling (autogroup), a job process in a session of its own would get as much CPU as the
 * whole server whatever its nice value. So a Ctrl-C at the terminal or a service manager's
 * SIGTERM reaches it too; it ignores them and waits for the server to stop the jobs in order. If
 * the server dies, the job process loses its channel and ends.
 *
 * A cancel ends a running job within CANCEL_GRACE_MS whatever the job is doing: the job process
 * notices the request within a second and aborts the job (a parse under way is cut off with its
 * thread, parse-thread.ts); if the job has still not ended CANCEL_GRACE_MS after the request (a
 * native call that never returns), this side kills the job process, and the next job process
 * ends the job as cancelled when it starts, a second later.
 *
 * Guarantee: a job process that ends unexpectedly (a crash, the kernel's OOM killer) costs only
 * the jobs it was running, which end failed with the reason (worker.ts, failRunningJobs); the
 * server logs why, reports itself not ready, and starts a new job process after RESTART_DELAY_MS,
 * twice as long after each one that ended within STEADY_MS of its start, at most
 * MAX_RESTART_DELAY_MS. A stop waits STOP_GRACE_MS for the jobs to unwind, then kills the job
 * process: its job is queued again at the next start, as after any stop.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { LecternConfig } from '../config.js'
import type { Store } from '../store/index.js'
import { newRunnerIdentity, type JobRunnerIdentity } from './lease.js'
import { RequestGauge } from './pace.js'
import type { JobRunner } from './runner.js'
import { failRunningJobs, type JobLog } from './worker.js'

export type LogLevel = 'info' | 'warn' | 'error'

/** Messages to the job process. */
export type ToJobProcess =
  | { type: 'init'; config: LecternConfig; runner: JobRunnerIdentity }
  | { type: 'start' }
  | { type: 'wake' }
  | { type: 'stop' }
  | { type: 'requests'; inFlight: boolean }

/** Messages from the job process. */
export type FromJobProcess =
  | { type: 'started' }
  | { type: 'log'; level: LogLevel; obj: object; msg: string }
  | { type: 'forget-set'; setPk: number }
  | { type: 'stopped' }

export interface JobProcessOptions {
  config: LecternConfig
  /** The server's store, where the jobs of a job process that died are ended. */
  store: Store
  log: JobLog
  /** A job replaced or removed this set's files: the serving side drops what it cached. */
  forgetSet(setPk: number): void
  /** The job worker started or stopped taking jobs (under `serve --workers`, the other workers' readiness follows it). */
  onRunningChange?(running: boolean): void
}

/** How much of the job process's stderr (a crash's stack) is kept for the log line of its exit. */
const STDERR_TAIL_BYTES = 4096
/** The wait before a job process that ended unexpectedly is replaced, doubled after each such end in a row. */
export const RESTART_DELAY_MS = 1000
const MAX_RESTART_DELAY_MS = 60_000
/** A job process that ran this long before it ended starts its successor after RESTART_DELAY_MS again. */
const STEADY_MS = 60_000
/** How long a stop waits for the job process to unwind its job (a killed git's own grace is 5 s). */
export const STOP_GRACE_MS = 10_000
/** How long a cancelled job may take to end before its job process is killed: longer than a killed git's own 5 s grace. */
export const CANCEL_GRACE_MS = 8_000
/** How often the server looks for a cancelled job that has not ended. */
const CANCEL_WATCH_MS = 1_000

export class JobProcess implements JobRunner {
  private child: ChildProcess | undefined
  private running = false
  private stopping = false
  private restartDelay = RESTART_DELAY_MS
  private restart: NodeJS.Timeout | undefined
  private exited: Promise<void> = Promise.resolve()
  private cancelWatch: NodeJS.Timeout | undefined
  /** The job whose cancel this side enforced by killing the job process. */
  private killedForCancel: number | undefined
  readonly requests = new RequestGauge((inFlight) => this.send({ type: 'requests', inFlight }))

  constructor(private readonly options: JobProcessOptions) {}

  get isRunning(): boolean {
    return this.running
  }

  private setRunning(running: boolean): void {
    if (running === this.running) return
    this.running = running
    this.options.onRunningChange?.(running)
  }

  start(): void {
    if (!this.child) {
      this.killedForCancel = undefined
      this.spawnJobProcess()
    }
    this.send({ type: 'start' })
  }

  wake(): void {
    this.send({ type: 'wake' })
  }

  /** A server's jobs are taken from the queue as they come; only a CLI without a server drains it (wait.ts). */
  async drain(): Promise<void> {
    throw new Error('the job process takes jobs from the queue as they come; drain runs the queue in a CLI')
  }

  async stop(): Promise<void> {
    this.setRunning(false)
    this.stopping = true
    clearTimeout(this.restart)
    clearInterval(this.cancelWatch)
    const child = this.child
    this.send({ type: 'stop' })
    const killer = setTimeout(() => {
      this.options.log.warn({ graceMs: STOP_GRACE_MS, jobProcess: child?.pid }, 'the job process did not stop in time; killing it (its job is queued again at the next start)')
      child?.kill('SIGKILL')
    }, STOP_GRACE_MS)
    await this.exited
    clearTimeout(killer)
  }

  /** Sends while the job process listens; one that ended has nothing to be told. */
  private send(message: ToJobProcess): void {
    if (this.child?.connected) this.child.send(message)
  }

  private spawnJobProcess(): void {
    const { config } = this.options
    this.stopping = false
    const forkedAt = performance.now()
    // Each job process is a runner of its own: the jobs of one that died are told apart from its successor's.
    const runner = newRunnerIdentity(config.jobs.leaseSeconds * 1000)
    const child = fork(fileURLToPath(new URL('./job-process-main.js', import.meta.url)), [], {
      // The server's own Node flags (a profiler, a preloaded module) are not the jobs'.
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    this.child = child
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_TAIL_BYTES)))
    child.on('message', (message: FromJobProcess) => this.receive(child, message))
    // The configuration carries secrets: it goes over the channel, never the command line.
    child.send({ type: 'init', config, runner } satisfies ToJobProcess)
    clearInterval(this.cancelWatch)
    this.cancelWatch = setInterval(() => void this.enforceCancel(child, runner.owner), CANCEL_WATCH_MS).unref()
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.setRunning(false)
        this.child = undefined
        clearInterval(this.cancelWatch)
        if (this.stopping) return resolve()
        if (this.killedForCancel !== undefined) this.restartAfterCancel()
        else void this.ended({ code, signal, stderr: stderr.trim() || undefined }, performance.now() - forkedAt, runner.owner)
        resolve()
      })
    })
  }

  /** Kills the job process when a job it runs was asked to cancel CANCEL_GRACE_MS ago and has not ended. */
  private async enforceCancel(child: ChildProcess, owner: string): Promise<void> {
    let overdue: number | undefined
    try {
      const now = Date.now()
      overdue = (await this.options.store.jobs
        .list({ states: ['running'], limit: 1000 }))
        .find((job) => job.owner === owner && job.cancelRequestedAt !== null && now - Date.parse(job.cancelRequestedAt) >= CANCEL_GRACE_MS)?.pk
    } catch {
      // A read the database refuses now is asked again at the next watch.
      return
    }
    // The child may have ended while the jobs were read: only the live one is killed.
    if (overdue === undefined || this.killedForCancel !== undefined || this.child !== child) return
    this.killedForCancel = overdue
    this.options.log.warn({ jobId: overdue, graceMs: CANCEL_GRACE_MS, jobProcess: child.pid }, 'the cancelled job did not end in time; killing its job process')
    child.kill('SIGKILL')
  }

  /** A job process killed to end a cancelled job: the next one, started at once, ends the job as cancelled. */
  private restartAfterCancel(): void {
    this.options.log.info({ jobId: this.killedForCancel }, 'job process killed to cancel its job; starting a new one')
    this.killedForCancel = undefined
    this.restart = setTimeout(() => {
      this.restart = undefined
      this.start()
    }, 0)
  }

  /** The job process ended without being asked to: its jobs fail, and a new one starts after a while. */
  private async ended(exit: { code: number | null; signal: NodeJS.Signals | null; stderr?: string }, ranMs: number, owner: string): Promise<void> {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`
    let failedJobs: number[] = []
    try {
      const oom = exit.signal === 'SIGKILL' ? ' (the kernel kills a process with SIGKILL when memory runs out)' : ''
      failedJobs = await failRunningJobs(this.options.store, owner, `The job process ${how} while this job ran${oom}; refresh the library, or add it again, to run it anew.`)
    } catch (err) {
      // The next job process's start queues them again instead (worker.ts).
      this.options.log.error({ err }, 'could not end the jobs of the job process that ended')
    }
    // Stopped while the jobs were failed: nothing starts again after a stop.
    if (this.stopping) return
    if (ranMs >= STEADY_MS) this.restartDelay = RESTART_DELAY_MS
    const restartInMs = this.restartDelay
    this.options.log.error({ ...exit, failedJobs, restartInMs }, `the job process ended unexpectedly (it ${how}); a new one starts in ${restartInMs / 1000} s`)
    this.restartDelay = Math.min(this.restartDelay * 2, MAX_RESTART_DELAY_MS)
    this.restart = setTimeout(() => {
      this.restart = undefined
      this.start()
    }, restartInMs)
  }

  private receive(child: ChildProcess, message: FromJobProcess): void {
    switch (message.type) {
      case 'started':
        this.setRunning(true)
        this.options.log.info({ jobProcess: child.pid }, 'job process started')
        return
      case 'log':
        this.options.log[message.level](message.obj, message.msg)
        return
      case 'forget-set':
        this.options.forgetSet(message.setPk)
        return
      case 'stopped':
        // Everything the job process had to say came before this: closing the channel ends it.
        child.disconnect()
    }
  }
}
