/**
 * The worker: claims queued jobs and runs the handler of their kind, one at a time unless
 * `jobs.concurrency` says more (each of N loops claims and runs its own job). Jobs
 * enqueued by this process wake it at once; jobs enqueued by another process (a CLI, another
 * replica) are found by polling. `stop()` aborts the running job and waits for it to unwind: its
 * library keeps its previous snippet set, and the job is queued again.
 *
 * The worker is one runner of the queue (lease.ts): it holds the job it runs under a lease that
 * it renews while the job runs, and queues again the jobs of runners whose lease lapsed: at start,
 * and on PostgreSQL, where other replicas' runners may die at any time, every renewal period. On
 * SQLite the data directory's lock makes the starting worker the only runner, so every job found
 * running at its start is a dead runner's, whatever its lease says. A job this worker lost (its
 * lease lapsed while it was cut off) is aborted, and nothing of its outcome is written.
 *
 * Guarantee: however a job ends (a new set, no new set, failure, cancel, abort, shutdown), its
 * version is left in a true state (finalized when it serves a set, else error or initial) and its
 * work directory is removed.
 *
 * A cancel asked for in any process is recorded on the job's row (cancel.ts); while a job runs,
 * its row is read every CANCEL_POLL_MS and a request aborts the job, which ends failed with
 * `cancelled`. Each job's log lines are also kept with the job (job-log.ts).
 *
 * A full disk never stops the loop: a job that runs out of space fails with `disk_full`; an
 * outcome the database cannot take yet is kept, with its version's settling, and written at the
 * next poll (before any claim); a claim that fails is retried at the next poll.
 */
import fs from 'node:fs/promises'
import { asDiskFull, likelyCause } from '../install/disk-full.js'
import { isLecternError, LecternError } from '../errors.js'
import { jobWorkDir } from '../install/paths.js'
import type { Job } from '../store/jobs.js'
import type { Store } from '../store/index.js'
import { JobNotHeldError } from '../store/jobs.js'
import { cancelledReason } from './cancel.js'
import { JobLogRecorder } from './job-log.js'
import { leaseEnd, newRunnerIdentity, renewEvery, type JobRunnerIdentity } from './lease.js'
import { nextTurn, type Pace } from './pace.js'
import { failJob, settleVersion } from './version-outcome.js'

/**
 * How often a running job's row is read for a cancel request: a cancel takes effect within this
 * (plus the time to the job's next await), and a read of one row by its key costs microseconds.
 */
const CANCEL_POLL_MS = 250

export interface JobLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface JobContext {
  job: Job
  signal: AbortSignal
  /** Records a human-readable status line (shown by `lectern jobs` and /api/parse-status). */
  progress(message: string): void
  log: JobLog
  /** Awaited between pieces of work (documents, batches): gives way to requests in flight (pace.ts). */
  pace: Pace
  /**
   * Throws JobNotHeldError unless this worker still holds the job; called inside the transaction
   * that swaps in what the job built, so a runner that lost the job cannot swap in its work.
   */
  fence(): Promise<void>
}

/** How a job that succeeded ended: its result line, and how many documents it skipped. */
export type JobResult = string | void | { message: string; warnings: number }

export type JobHandler = (ctx: JobContext) => Promise<JobResult>

/** The handler of each job kind, by kind. */
export type JobHandlers = Record<string, JobHandler>

export interface WorkerOptions {
  pollMs?: number
  /** Called after any job ends, e.g. to drop caches that named the replaced snippet set. */
  onJobEnd?: (job: Job) => Promise<void> | void
  /** Called before each claim: housekeeping that leaves alone what running jobs hold (their leases). */
  betweenJobs?: () => Promise<void> | void
  /** The jobs' pace (default: a turn of the event loop, no pauses). */
  pace?: Pace
  /** Who this worker is to the queue (default: a new id, this data directory, the default lease). */
  runner?: JobRunnerIdentity
  /** How many jobs run at once (`jobs.concurrency`, default 1). */
  concurrency?: number
}

export class Worker {
  private running = false
  private loops: Array<Promise<void>> = []
  /** Each idle loop's wake-up. */
  private readonly wakers = new Set<() => void>()
  /** The running jobs' aborts. */
  private readonly current = new Set<AbortController>()
  /** Jobs' outcomes the database refused (full disk), written before anything else is claimed. */
  private unrecorded: Array<() => Promise<void>> = []
  private claimFailing = false
  private readonly runner: JobRunnerIdentity
  private lastRecovery = 0

  constructor(
    private readonly store: Store,
    private readonly handlers: JobHandlers,
    private readonly log: JobLog,
    private readonly options: WorkerOptions = {},
  ) {
    this.runner = options.runner ?? newRunnerIdentity()
  }

  get isRunning(): boolean {
    return this.running
  }

  async start(): Promise<void> {
    if (this.running) return
    // Set before the first await: a second start while this one recovers must not start a second loop.
    this.running = true
    try {
      await this.recover(this.store.database.kind === 'sqlite')
    } catch (err) {
      // A start on a full disk still serves reads; those jobs are queued at a later start.
      this.log.error({ err }, `could not queue again the jobs a previous run left running (${likelyCause(err)})`)
    }
    this.loops = Array.from({ length: Math.max(1, this.options.concurrency ?? 1) }, () => this.run())
  }

  /** Ask the idle loops to look for work now instead of at the next poll. */
  wake(): void {
    for (const wakeUp of this.wakers) wakeUp()
  }

  async stop(): Promise<void> {
    this.running = false
    for (const controller of this.current) controller.abort(new Error('worker stopping'))
    this.wake()
    await Promise.all(this.loops)
  }

  /** Runs queued jobs until none is left; for a CLI that works without a server (store errors end it). */
  async drain(until: () => boolean | Promise<boolean> = () => false): Promise<void> {
    while (!(await until())) if (!(await this.runNext())) break
    await this.writeUnrecorded()
  }

  /** Claims and runs the oldest queued job; false when none was queued. */
  private async runNext(): Promise<boolean> {
    const job = await this.claim()
    if (!job) return false
    await this.execute(job)
    return true
  }

  /** Taken out before the first await, so two loops never write one outcome twice; what fails waits for the next try. */
  private async writeUnrecorded(): Promise<void> {
    const pending = this.unrecorded.splice(0)
    for (let i = 0; i < pending.length; i++) {
      try {
        await pending[i]!()
      } catch (err) {
        this.unrecorded.unshift(...pending.slice(i))
        throw err
      }
    }
  }

  private async claim(): Promise<Job | undefined> {
    await this.writeUnrecorded()
    if (this.store.database.kind === 'postgres' && Date.now() - this.lastRecovery >= renewEvery(this.runner.leaseMs)) await this.recover(false)
    await this.options.betweenJobs?.()
    const { owner, leaseMs } = this.runner
    return await this.store.jobs.claimNext({ owner, leaseUntil: leaseEnd(leaseMs) })
  }

  /**
   * Jobs whose runner is gone (every running job, when this worker is the only runner) marked their
   * versions `processing`; they wait in the queue again now, except those an admin asked to cancel,
   * which end as cancelled. A job another runner recovers or renews meanwhile is left to it.
   */
  private async recover(onlyRunner: boolean): Promise<void> {
    this.lastRecovery = Date.now()
    const now = new Date().toISOString()
    let requeued = 0
    for (const job of await this.store.jobs.lapsed(onlyRunner ? undefined : now)) {
      if (job.cancelRequestedAt !== null) {
        await this.endCancelled(job)
        continue
      }
      await this.store.transaction(async () => {
        if (!(await this.store.jobs.requeue(job, 'interrupted; queued again', onlyRunner ? undefined : now))) return
        requeued++
        if (job.versionPk !== null) await settleVersion(this.store, job.versionPk)
      })
    }
    if (requeued > 0) this.log.warn({ requeued }, 'jobs whose runner is gone (it was killed, lost the database longer than its lease, or its job process did not stop in time) were queued again')
  }

  /** A claim, or undefined when the store cannot be written now (logged once, retried at the next poll). */
  private async claimOrWait(): Promise<Job | undefined> {
    try {
      const job = await this.claim()
      this.claimFailing = false
      return job
    } catch (err) {
      if (!this.claimFailing) this.log.error({ err }, `the job queue cannot be written now (${likelyCause(err)}); retrying`)
      this.claimFailing = true
      return undefined
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      const job = await this.claimOrWait()
      if (job) {
        await this.execute(job)
        continue
      }
      await new Promise<void>((resolve) => {
        const wakeUp = () => {
          clearTimeout(timer)
          this.wakers.delete(wakeUp)
          resolve()
        }
        const timer = setTimeout(wakeUp, this.options.pollMs ?? 1000)
        this.wakers.add(wakeUp)
      })
    }
  }

  private async execute(job: Job): Promise<void> {
    const controller = new AbortController()
    this.current.add(controller)
    const started = Date.now()
    // Every line of the job, the handler's too, names the job and what it works on.
    const subject = { jobId: job.pk, kind: job.kind, ...await this.subjectOf(job) }
    const recorder = new JobLogRecorder(this.store, job.pk, this.log, new Set(Object.keys(subject)), this.tokenOf(job))
    const log = both(withFields(this.log, subject), recorder)
    const workDir = jobWorkDir(this.store.paths, job.pk)
    const removeWorkDir = () =>
      fs.rm(workDir, { recursive: true, force: true }).catch((err: unknown) => log.warn({ err }, "could not remove the job's work directory"))
    log.info({}, 'job started')
    let cancelled = false
    let lost = false
    let renewed = Date.now()
    const watch = setInterval(() => void watchJob(), CANCEL_POLL_MS)
    const watchJob = async () => {
      if (Date.now() - renewed >= renewEvery(this.runner.leaseMs)) await renewLease()
      const by = cancelled || lost ? undefined : await this.cancelRequester(job.pk)
      if (by === undefined || cancelled || lost) return
      cancelled = true
      log.warn({ by }, 'cancel requested; stopping the job')
      controller.abort(new LecternError('cancelled', cancelledReason(job.pk, 'running')))
    }
    // Renewed from the time of asking: a renewal the database took long to answer holds no longer than it should.
    const renewLease = async () => {
      const asked = Date.now()
      renewed = asked
      try {
        if (lost || (await this.store.jobs.renewLease(job.pk, this.runner.owner, leaseEnd(this.runner.leaseMs, asked)))) return
      } catch {
        // The database is unreachable: the next tick asks again, and the lease lapses if it stays so.
        return
      }
      if (lost) return
      lost = true
      log.warn({}, 'this runner no longer holds the job (its lease lapsed while it was cut off or stalled, and the job was queued again): stopping it; nothing of this run is recorded')
      controller.abort(new JobNotHeldError(job.pk))
    }
    // Written one after the other, and all before the outcome: a late one must not overwrite it.
    let statusWrites: Promise<void> = Promise.resolve()
    const progress = (message: string) => {
      statusWrites = statusWrites.then(() => this.store.jobs.setStatus(job.pk, message)).catch((err: unknown) => log.warn({ err }, "could not record the job's progress"))
    }
    let outcome: () => Promise<void>
    try {
      // A run cut off by a crash left its files; this run starts from nothing.
      await removeWorkDir()
      if (job.versionPk !== null) await this.store.libraries.setVersionState(job.versionPk, 'processing')
      const handler = Object.hasOwn(this.handlers, job.kind) ? this.handlers[job.kind] : undefined
      if (!handler) throw new Error(`no handler for job kind "${job.kind}"`)
      const result = await handler({
        job,
        signal: controller.signal,
        progress,
        log,
        pace: this.options.pace ?? nextTurn,
        fence: () => this.store.jobs.requireHeld(job.pk, this.runner.owner),
      })
      const { message, warnings } = typeof result === 'object' ? result : { message: result || 'done', warnings: 0 }
      outcome = () => this.store.jobs.succeed(job, message, warnings)
      log.info({ ms: Date.now() - started }, 'job succeeded')
    } catch (caught) {
      lost ||= caught instanceof JobNotHeldError
      // A cancel asked just before a stop, which the watch had not seen yet, wins over the stop.
      cancelled ||= !lost && !this.running && (await this.cancelRequester(job.pk)) !== undefined
      if (lost) {
        // Another runner holds the job now (or it was ended as interrupted): its outcome is theirs.
        outcome = () => Promise.reject(new JobNotHeldError(job.pk))
        log.warn({ ms: Date.now() - started }, 'job given up: another runner took it over')
      } else if (cancelled) {
        // Whatever the abort made the handler throw (a killed git, an aborted fetch), the job was cancelled.
        const reason = cancelledReason(job.pk, 'running')
        outcome = () => failJob(this.store, job, 'cancelled', reason)
        log.warn({ ms: Date.now() - started }, 'job cancelled')
      } else if (controller.signal.aborted && !this.running) {
        // Stopping, not failing: the job waits in the queue for the next start.
        log.warn({}, 'job interrupted by the stop; queued again')
        outcome = async () => {
          if (!(await this.store.jobs.requeue(job, 'interrupted by a stop; queued again'))) throw new JobNotHeldError(job.pk)
        }
      } else {
        const err = asDiskFull(caught, 'the job', this.store.paths.root)
        const code = isLecternError(err) ? err.code : 'internal_error'
        const message = err instanceof Error ? err.message : String(err)
        outcome = () => failJob(this.store, job, code, message)
        log.warn({ code, reason: message }, 'job failed')
      }
    }
    clearInterval(watch)
    await statusWrites
    // Whatever the handler left running on the job's signal (a crawl's other fetches and parses
    // after one failed) ends with the job, not after it.
    if (!controller.signal.aborted) controller.abort(new Error('the job ended'))
    this.current.delete(controller)
    await removeWorkDir()
    await recorder.flush()
    const end = () => this.end(job, outcome, log)
    try {
      await end()
    } catch (err) {
      if (err instanceof JobNotHeldError) {
        // The runner that took the job over records its end, and settles its version.
        log.warn({}, 'the job was taken over by another runner; this run recorded nothing')
        return
      }
      // Retried at every poll, so the version leaves `processing` as soon as the database takes it.
      this.unrecorded.push(end)
      log.error({ err }, 'could not record how the job ended; retrying before the next job')
    }
  }

  /**
   * Records the outcome and settles the version in one transaction (both or neither, so a retry
   * repeats both); then the onJobEnd tidying, which fails soft.
   */
  private async end(job: Job, outcome: () => Promise<void>, log: JobLog): Promise<void> {
    await this.store.transaction(async () => {
      await outcome()
      if (job.versionPk !== null) await settleVersion(this.store, job.versionPk)
    })
    try {
      const ended = await this.store.jobs.byPk(job.pk)
      if (ended) await this.options.onJobEnd?.(ended)
    } catch (err) {
      log.error({ err }, 'could not tidy up after the job')
    }
  }

  private async subjectOf(job: Job): Promise<{ libraryId?: string; version?: string }> {
    const library = job.libraryPk === null ? undefined : await this.store.libraries.byPk(job.libraryPk)
    const tag = job.versionPk === null ? '' : ((await this.store.libraries.versionByPk(job.versionPk))?.tag ?? '')
    return { ...(library ? { libraryId: library.id } : {}), ...(tag ? { version: tag } : {}) }
  }

  /** The job's own token, cut out of its log lines; none when it has none (or it cannot be opened: the handler will say so). */
  private tokenOf(job: Job): string | undefined {
    if (!job.secret) return undefined
    try {
      return this.store.secrets.open(job.secret)
    } catch {
      return undefined
    }
  }

  /** A read the database refuses (it never should) is not a cancel: the next poll asks again. */
  private async cancelRequester(jobPk: number): Promise<string | undefined> {
    try {
      return await this.store.jobs.cancelRequester(jobPk)
    } catch {
      return undefined
    }
  }

  /** A job a dead process was running when its cancel was asked for: it ends cancelled and never runs again. */
  private async endCancelled(job: Job): Promise<void> {
    const reason = cancelledReason(job.pk, 'running')
    try {
      await this.store.transaction(async () => await failJob(this.store, job, 'cancelled', reason))
    } catch (err) {
      // Another runner ended it first.
      if (err instanceof JobNotHeldError) return
      throw err
    }
    removeWorkDirOf(this.store, job.pk)
    this.log.warn({ jobId: job.pk }, 'a job cut off after its cancel was asked ended as cancelled')
  }
}

/**
 * The jobs a job process was running when it ended unexpectedly (a crash, the kernel's OOM
 * killer), the jobs `owner` holds, end failed, their versions settled as after any failure.
 * Queued again instead, a job that kills its process would kill every job process started after
 * it. A job whose cancel was asked for is left to the next runner's recovery, which ends it
 * cancelled. Each job's own log ends with the line a failure writes. Returns the jobs failed.
 */
export async function failRunningJobs(store: Store, owner: string, message: string): Promise<number[]> {
  const time = new Date().toISOString()
  // Read under the write lock: a job cancelled or ended meanwhile by another process is left alone.
  const jobs = await store.transaction(async () => {
    const running = (await store.jobs.list({ states: ['running'], limit: 1000 })).filter((job) => job.owner === owner && job.cancelRequestedAt === null)
    for (const job of running) {
      await failJob(store, job, 'internal_error', message)
      await store.jobLogs.append(job.pk, [{ time, level: 'warn', message: 'job failed', fields: { code: 'internal_error', reason: message } }])
    }
    return running
  })
  for (const job of jobs) removeWorkDirOf(store, job.pk)
  return jobs.map((job) => job.pk)
}

/** Removes an ended job's work directory; one left (the rm failed) is swept at the next start with the other ended jobs' (runtime.ts). */
function removeWorkDirOf(store: Store, jobPk: number): void {
  void fs.rm(jobWorkDir(store.paths, jobPk), { recursive: true, force: true }).catch(() => {})
}

/** Each line to both logs. */
function both(a: JobLog, b: JobLog): JobLog {
  return {
    info: (obj, msg) => (a.info(obj, msg), b.info(obj, msg)),
    warn: (obj, msg) => (a.warn(obj, msg), b.warn(obj, msg)),
    error: (obj, msg) => (a.error(obj, msg), b.error(obj, msg)),
  }
}

function withFields(log: JobLog, fields: object): JobLog {
  return {
    info: (obj, msg) => log.info({ ...fields, ...obj }, msg),
    warn: (obj, msg) => log.warn({ ...fields, ...obj }, msg),
    error: (obj, msg) => log.error({ ...fields, ...obj }, msg),
  }
}
