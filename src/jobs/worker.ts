/**
 * The worker: claims queued jobs one at a time and runs the handler of their kind. Jobs
 * enqueued by this process wake it at once; jobs enqueued by another process (a CLI) are found
 * by polling. `stop()` aborts the running job and waits for it to unwind: its library keeps
 * its previous snippet set, and the job is queued again at the next start.
 *
 * Guarantee: however a job ends (a new set, no new set, failure, abort, shutdown), its version
 * is left in a true state (finalized when it serves a set, else error or initial) and its work
 * directory is removed.
 */
import fs from 'node:fs/promises'
import { isLecternError } from '../errors.js'
import { jobWorkDir } from '../paths.js'
import type { Job } from '../store/jobs.js'
import type { Store } from '../store/index.js'

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
}

export type JobHandler = (ctx: JobContext) => Promise<string | void>

export interface WorkerOptions {
  pollMs?: number
  /** Called after any job ends, e.g. to drop caches that named the replaced snippet set. */
  onJobEnd?: (job: Job) => void
}

export class Worker {
  private running = false
  private loop: Promise<void> | undefined
  private wakeUp: (() => void) | undefined
  private current: AbortController | undefined

  constructor(
    private readonly store: Store,
    private readonly handlers: Record<string, JobHandler>,
    private readonly log: JobLog,
    private readonly options: WorkerOptions = {},
  ) {}

  get isRunning(): boolean {
    return this.running
  }

  start(): void {
    if (this.running) return
    // Jobs a dead process left running marked their versions `processing`; they wait again now.
    for (const job of this.store.jobs.list({ states: ['running'], limit: 1000 })) {
      if (job.versionPk !== null) this.settleVersion(job.versionPk)
    }
    const requeued = this.store.jobs.requeueInterrupted()
    if (requeued > 0) this.log.warn({ requeued }, 'jobs interrupted by a previous stop were queued again')
    this.running = true
    this.loop = this.run()
  }

  /** Ask the loop to look for work now instead of at the next poll. */
  wake(): void {
    this.wakeUp?.()
  }

  async stop(): Promise<void> {
    this.running = false
    this.current?.abort(new Error('worker stopping'))
    this.wake()
    await this.loop
  }

  /** Runs queued jobs until none is left; for a CLI that works without a server. */
  async drain(until: () => boolean = () => false): Promise<void> {
    while (!until()) {
      const job = this.store.jobs.claimNext()
      if (!job) return
      await this.execute(job)
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      const job = this.store.jobs.claimNext()
      if (job) {
        await this.execute(job)
        continue
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs ?? 1000)
        this.wakeUp = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      this.wakeUp = undefined
    }
  }

  private async execute(job: Job): Promise<void> {
    const handler = this.handlers[job.kind]
    const controller = new AbortController()
    this.current = controller
    const started = Date.now()
    const workDir = jobWorkDir(this.store.paths, job.pk)
    const removeWorkDir = () =>
      fs.rm(workDir, { recursive: true, force: true }).catch((err: unknown) => this.log.warn({ jobId: job.pk, err }, "could not remove the job's work directory"))
    this.log.info({ jobId: job.pk, kind: job.kind }, 'job started')
    if (job.versionPk !== null) this.store.libraries.setVersionState(job.versionPk, 'processing')
    try {
      // A run cut off by a crash left its files; this run starts from nothing.
      await removeWorkDir()
      if (!handler) throw new Error(`no handler for job kind "${job.kind}"`)
      const message = await handler({
        job,
        signal: controller.signal,
        progress: (m) => this.store.jobs.setStatus(job.pk, m),
        log: this.log,
      })
      this.store.jobs.succeed(job.pk, message || 'done')
      this.log.info({ jobId: job.pk, kind: job.kind, ms: Date.now() - started }, 'job succeeded')
    } catch (err) {
      if (controller.signal.aborted && !this.running) {
        // Stopping, not failing: leave the job running so the next start queues it again.
        this.log.warn({ jobId: job.pk }, 'job interrupted by shutdown')
      } else {
        const code = isLecternError(err) ? err.code : 'internal_error'
        const message = err instanceof Error ? err.message : String(err)
        this.store.jobs.fail(job.pk, code, message)
        this.markVersionFailed(job, code, message)
        this.log.warn({ jobId: job.pk, kind: job.kind, code, reason: message }, 'job failed')
      }
    } finally {
      this.current = undefined
      await removeWorkDir()
      if (job.versionPk !== null) this.settleVersion(job.versionPk)
      const ended = this.store.jobs.byPk(job.pk)
      if (ended) this.options.onJobEnd?.(ended)
    }
  }

  /** A failed refresh keeps serving the previous set: the version stays finalized, with the error noted. */
  private markVersionFailed(job: Job, code: string, message: string): void {
    if (job.versionPk === null) return
    const version = this.store.libraries.versionByPk(job.versionPk)
    if (!version) return
    this.store.libraries.setVersionState(version.pk, version.currentSet === null ? 'error' : 'finalized', { code, message })
  }

  /**
   * A version still `processing` after its job ended got no new set (unchanged source, shutdown,
   * a dead process): it serves its live set, or waits for a job to build one.
   */
  private settleVersion(versionPk: number): void {
    const version = this.store.libraries.versionByPk(versionPk)
    if (version?.state !== 'processing') return
    this.store.libraries.setVersionState(versionPk, version.currentSet !== null ? 'finalized' : 'initial')
  }
}
