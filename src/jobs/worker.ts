/**
 * The worker: claims queued jobs one at a time and runs the handler of their kind. Jobs
 * enqueued by this process wake it at once; jobs enqueued by another process (a CLI) are found
 * by polling. `stop()` aborts the running job and waits for it to unwind: its library keeps
 * its previous snippet set, and the job is queued again at the next start.
 */
import { isLecternError } from '../errors.js'
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
    while (!until()) if (!(await this.runNext())) return
  }

  /** Claims and runs the oldest queued job; false when none was queued. */
  async runNext(): Promise<boolean> {
    const job = this.store.jobs.claimNext()
    if (!job) return false
    await this.execute(job)
    return true
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
    // Every line of the job, the handler's too, names the job and what it works on.
    const log = withFields(this.log, { jobId: job.pk, kind: job.kind, ...this.subjectOf(job) })
    log.info({}, 'job started')
    if (job.versionPk !== null) this.store.libraries.setVersionState(job.versionPk, 'processing')
    try {
      if (!handler) throw new Error(`no handler for job kind "${job.kind}"`)
      const message = await handler({
        job,
        signal: controller.signal,
        progress: (m) => this.store.jobs.setStatus(job.pk, m),
        log,
      })
      this.store.jobs.succeed(job.pk, message || 'done')
      log.info({ ms: Date.now() - started }, 'job succeeded')
    } catch (err) {
      if (controller.signal.aborted && !this.running) {
        // Stopping, not failing: leave the job running so the next start queues it again.
        log.warn({}, 'job interrupted by shutdown')
      } else {
        const code = isLecternError(err) ? err.code : 'internal_error'
        const message = err instanceof Error ? err.message : String(err)
        this.store.jobs.fail(job.pk, code, message)
        this.markVersionFailed(job, code, message)
        log.warn({ code, reason: message }, 'job failed')
      }
    } finally {
      this.current = undefined
      const ended = this.store.jobs.byPk(job.pk)
      if (ended?.state === 'running' && ended.versionPk !== null) this.restoreVersionState(ended.versionPk)
      if (ended) this.options.onJobEnd?.(ended)
    }
  }

  /** The library ID, and the version tag unless it is the default version, of the job's subject. */
  private subjectOf(job: Job): { libraryId?: string; version?: string } {
    const library = job.libraryPk === null ? undefined : this.store.libraries.byPk(job.libraryPk)
    const tag = job.versionPk === null ? '' : (this.store.libraries.versionByPk(job.versionPk)?.tag ?? '')
    return { ...(library ? { libraryId: library.id } : {}), ...(tag ? { version: tag } : {}) }
  }

  /** A failed refresh keeps serving the previous set: the version stays finalized, with the error noted. */
  private markVersionFailed(job: Job, code: string, message: string): void {
    if (job.versionPk === null) return
    const version = this.store.libraries.versionByPk(job.versionPk)
    if (!version) return
    this.store.libraries.setVersionState(version.pk, version.currentSet === null ? 'error' : 'finalized', { code, message })
  }

  /** An interrupted job leaves its version as it was before, until the job runs again. */
  private restoreVersionState(versionPk: number): void {
    const version = this.store.libraries.versionByPk(versionPk)
    if (version?.currentSet !== null && version?.currentSet !== undefined) this.store.libraries.setVersionState(versionPk, 'finalized')
  }
}

/** A log whose every line carries `fields` (a line's own fields win). */
function withFields(log: JobLog, fields: object): JobLog {
  return {
    info: (obj, msg) => log.info({ ...fields, ...obj }, msg),
    warn: (obj, msg) => log.warn({ ...fields, ...obj }, msg),
    error: (obj, msg) => log.error({ ...fields, ...obj }, msg),
  }
}
