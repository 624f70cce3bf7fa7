/**
 * The primary process of `lectern serve --workers N` (node:cluster): it holds the data-directory
 * lock (serve.ts takes it), prepares the data directory once, forks N worker processes that
 * share one listening port, and supervises them. It serves no request itself.
 *
 * Who does the once-only work: worker 1 runs the job worker (on its thread), the backup
 * schedule and the start-up housekeeping (recoverDataDir), not the primary, because
 *   - every counted request waits on the primary for its rate-limit answer, so its event loop
 *     must stay free: a backup's snapshot and archive, or relaying a busy job's log lines,
 *     would stall every request of every worker;
 *   - a crash in that work (an SDK's unhandled error during an S3 upload, say) then costs one
 *     worker, which is restarted, instead of the whole server; the duties restart with it,
 *     and its start-up housekeeping is safe again since the primary's lock still guarantees
 *     that no other process runs jobs.
 *
 * The primary also holds the only rate-limit counters (rate-limit-client.ts says why), relays
 * what one worker must tell the others (a snippet set's files replaced, a queued job, whether
 * the job worker runs), restarts a worker that dies (with backoff), and ends the lifetime on
 * SIGTERM/SIGINT or a staged restore: every worker drains and exits, then serve.ts goes on as
 * with one process (applies the restore and starts again, or exits).
 */
import cluster, { type Worker as ClusterWorker } from 'node:cluster'
import { fileURLToPath } from 'node:url'
import type { Logger } from 'pino'
import type { LecternConfig } from '../../src/config.js'
import { LecternError, type ErrorCode } from '../../src/errors.js'
import { RateLimiter } from '../../src/net/rate-limit.js'
import type { SharedRateLimiter } from '../../src/net/shared-rate-limit.js'
import type { LogDestination } from '../logger.js'
import { isMessage, type FromWorker, type ToWorker } from './messages.js'

/** The first restart of a worker waits this long; each quick death after it doubles the wait. */
const RESTART_BASE_MS = 250
const RESTART_MAX_MS = 30_000
/** A worker that served this long before it died starts the backoff over. */
const STABLE_MS = 60_000

/** Why a cluster lifetime ended. */
export type ClusterEnd = 'signal' | 'restore'

interface Slot {
  /** 1..N, stable across restarts: log lines name it as `worker`. */
  worker: number
  /** Worker 1 runs the jobs, the backup schedule and start-up housekeeping. */
  runsJobs: boolean
  process: ClusterWorker | undefined
  listening: boolean
  stopping: boolean
  startedAt: number
  /** Deaths in a row, each soon after its start: the restart backoff's exponent. */
  failures: number
  restartTimer: NodeJS.Timeout | undefined
  /** What the worker said when it could not start. */
  startFailure: { code: ErrorCode; message: string } | undefined
}

export class ClusterPrimary {
  private readonly slots: Slot[]
  private readonly limiter: RateLimiter | SharedRateLimiter
  private jobsRunning = false
  /** The port the workers share (the OS picks it for --port 0). */
  private port = 0
  private ending: ClusterEnd | undefined
  private signals = 0
  private resolveEnd: (reason: ClusterEnd) => void = () => {}
  private readonly ended = new Promise<ClusterEnd>((resolve) => (this.resolveEnd = resolve))
  /** Settled once every worker listens, or rejected when one fails its first start. */
  private startup: { resolve(): void; reject(err: Error): void } | undefined

  constructor(
    private readonly config: LecternConfig,
    private readonly log: Logger,
    private readonly logs: LogDestination,
    /** The counter the workers ask (default: one in this process; on PostgreSQL, one the replicas share). */
    limiter?: SharedRateLimiter,
  ) {
    this.slots = Array.from({ length: config.server.workers }, (_, i) => ({
      worker: i + 1,
      runsJobs: i === 0,
      process: undefined,
      listening: false,
      stopping: false,
      startedAt: 0,
      failures: 0,
      restartTimer: undefined,
      startFailure: undefined,
    }))
    this.limiter = limiter ?? new RateLimiter(config.rateLimit)
  }

  /** Starts every worker and supervises them until a signal or a staged restore; every worker has exited when it returns. */
  async run(onListening: (url: string) => void = () => {}): Promise<ClusterEnd> {
    cluster.setupPrimary({ exec: fileURLToPath(new URL('./worker.js', import.meta.url)), args: [] })
    const onSignal = (signal: NodeJS.Signals) => this.signalled(signal)
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
    try {
      const listening = new Promise<void>((resolve, reject) => (this.startup = { resolve, reject }))
      for (const slot of this.slots) this.fork(slot)
      try {
        await Promise.race([listening, this.ended])
      } catch (err) {
        await this.stopAll()
        throw err
      }
      if (!this.ending) {
        const url = `http://${this.config.server.host}:${this.port}`
        this.log.info({ url, workers: this.slots.length }, 'Lectern is listening (ready once the job process has started)')
        onListening(url)
      }
      const reason = await this.ended
      await this.stopAll()
      return reason
    } finally {
      process.off('SIGTERM', onSignal)
      process.off('SIGINT', onSignal)
    }
  }

  private fork(slot: Slot): void {
    slot.restartTimer = undefined
    slot.listening = false
    slot.stopping = false
    slot.startFailure = undefined
    slot.startedAt = Date.now()
    const child = cluster.fork()
    slot.process = child
    child.on('message', (message: unknown) => {
      if (isMessage<FromWorker>(message)) this.receive(slot, child, message)
    })
    child.on('exit', (code: number | null, signal: NodeJS.Signals | null) => this.exited(slot, child, code, signal))
    child.on('error', (err: Error) => this.log.warn({ err, worker: slot.worker }, `could not reach worker ${slot.worker}`))
  }

  /**
   * A worker can close its channel between the check and the write (it is exiting): the callback
   * keeps that EPIPE from being an unhandled 'error' that would end the primary; the worker's
   * 'exit' is what the primary acts on.
   */
  private send(child: ClusterWorker | undefined, message: ToWorker): void {
    if (child?.isConnected()) child.send(message, undefined, () => {})
  }

  private others(slot: Slot): Slot[] {
    return this.slots.filter((other) => other !== slot)
  }

  private receive(slot: Slot, child: ClusterWorker, message: FromWorker): void {
    switch (message.type) {
      case 'hello':
        if (!slot.stopping) this.send(child, { type: 'start', worker: slot.worker, runsJobs: slot.runsJobs, jobsRunning: this.jobsRunning, config: workerConfig(this.config) })
        return
      case 'listening':
        slot.listening = true
        this.port = message.port
        if (this.startup && this.slots.every((s) => s.listening)) {
          this.startup.resolve()
          this.startup = undefined
        }
        return
      case 'start-failed':
        slot.startFailure = { code: message.code, message: message.message }
        return
      case 'rate-limit':
        this.send(child, { type: 'rate-limit', answers: message.questions.map(({ id, caller, bucket, multiplier }) => ({ id, decision: this.limiter.take(caller, bucket, multiplier) })) })
        return
      case 'forget-set':
        for (const other of this.others(slot)) this.send(other.process, message)
        return
      case 'jobs-running':
        this.jobsRunning = message.running
        for (const other of this.others(slot)) this.send(other.process, message)
        return
      case 'wake-jobs':
        this.send(this.slots.find((s) => s.runsJobs)?.process, message)
        return
      case 'restore-staged':
        this.end('restore')
    }
  }

  private exited(slot: Slot, child: ClusterWorker, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.process !== child) return
    slot.process = undefined
    slot.listening = false
    if (slot.runsJobs && this.jobsRunning) {
      this.jobsRunning = false
      for (const other of this.others(slot)) this.send(other.process, { type: 'jobs-running', running: false })
    }
    if (slot.stopping || this.ending) return
    if (this.startup) {
      // Not every worker has listened yet: the start fails, as a single process's would.
      const failure = slot.startFailure
      this.startup.reject(failure ? new LecternError(failure.code, failure.message) : new LecternError('internal_error', `worker ${slot.worker} exited (code ${code}, signal ${signal}) before it listened`))
      return
    }
    if (Date.now() - slot.startedAt >= STABLE_MS) slot.failures = 0
    const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** slot.failures)
    slot.failures++
    this.log.warn({ exited: { worker: slot.worker, pid: child.process.pid, code, signal }, restartInMs: delay }, `worker ${slot.worker} exited; starting it again`)
    slot.restartTimer = setTimeout(() => this.fork(slot), delay)
  }

  private signalled(signal: NodeJS.Signals): void {
    if (++this.signals > 1) {
      this.log.warn({ signal }, 'second signal: exiting now')
      for (const slot of this.slots) slot.process?.process.kill('SIGKILL')
      this.logs.flush()
      process.exit(1)
    }
    this.log.info({ signal, reason: 'signal' }, 'stopping: draining requests and the worker')
    this.end('signal')
  }

  private end(reason: ClusterEnd): void {
    if (this.ending) return
    if (reason === 'restore') this.log.info({ reason }, 'stopping: draining requests and the worker')
    this.ending = reason
    this.resolveEnd(reason)
  }

  /** Every worker drains and exits; pending restarts are dropped. */
  private async stopAll(): Promise<void> {
    const exits: Array<Promise<unknown>> = []
    for (const slot of this.slots) {
      clearTimeout(slot.restartTimer)
      slot.restartTimer = undefined
      const child = slot.process
      if (!child || child.isDead()) continue
      slot.stopping = true
      // Not events.once: it rejects on the worker's 'error' event, and a stopping worker's
      // failed write is no reason to stop waiting for its exit.
      exits.push(new Promise((resolve) => child.once('exit', resolve)))
      if (child.isConnected()) this.send(child, { type: 'stop' })
      else child.process.kill('SIGTERM')
    }
    await Promise.all(exits)
  }
}

/** A worker's settings: the memory for loaded libraries (--cache-size) is shared among the workers. */
export function workerConfig(config: LecternConfig): LecternConfig {
  // Never under the setting's own minimum, which each worker checks again.
  const cacheSize = Math.max(2 ** 20, Math.floor(config.search.cacheSize / config.server.workers))
  return { ...config, search: { ...config.search, cacheSize } }
}
