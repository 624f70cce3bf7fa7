/**
 * Jobs as the admin API shows them (`GET /api/jobs`, `/api/jobs/:id`, the answer of a cancel):
 * what a job works on, where it stands and how it ended. Never the job's payload or sealed
 * secret; the stored reason of a failure and the status line are raw text (git's stderr, an
 * exception message), so credentials in them are redacted as for any insider (library/access.ts).
 */
import { redact } from '../sources/git.js'
import { interruptedProgress, isInterrupted } from './interrupted.js'
import type { Store } from '../store/index.js'
import type { Job, JobState } from '../store/jobs.js'

export interface JobView {
  id: number
  kind: string
  /** The library the job works on; null for jobs of no library (or of one removed since). */
  libraryId: string | null
  /** The version tag; null for the default branch and for jobs of no library. */
  version: string | null
  state: JobState
  /** 1-based place in the queue, for a queued job. */
  position: number | null
  /** The job's status line: its progress while it runs, its result once it ended. */
  progress: string | null
  errorCode: string | null
  errorMessage: string | null
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
  /** Time run so far (running) or in all (ended); null for a job that never started. */
  elapsedMs: number | null
  attempts: number
  /** When an admin asked to cancel the running job; it ends as cancelled within about a second. */
  cancelRequestedAt: string | null
  /** A running job whose process is gone (interrupted.ts): it runs again at the next server start. */
  interrupted: boolean
  /** Documents the job skipped because they could not be parsed within the parse budget; its log says which and why. */
  warnings: number
}

/** `position`: the job's place in the queue when the caller knows it (a list from the head of the queue). */
export async function viewJob(store: Store, job: Job, now = Date.now(), position?: number): Promise<JobView> {
  const library = job.libraryPk === null ? undefined : await store.libraries.byPk(job.libraryPk)
  const version = job.versionPk === null ? undefined : await store.libraries.versionByPk(job.versionPk)
  const started = job.startedAt === null ? undefined : Date.parse(job.startedAt)
  const ended = job.finishedAt === null ? now : Date.parse(job.finishedAt)
  const interrupted = isInterrupted(job)
  return {
    id: job.pk,
    kind: job.kind,
    libraryId: library?.id ?? null,
    version: version?.tag || null,
    state: job.state,
    position: job.state === 'queued' ? (position ?? await store.jobs.queuePosition(job.pk)) : null,
    progress: interrupted ? interruptedProgress(job) : job.statusMessage === null ? null : redact(job.statusMessage),
    errorCode: job.errorCode,
    errorMessage: job.errorMessage === null ? null : redact(job.errorMessage),
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    elapsedMs: started === undefined || job.state === 'queued' ? null : Math.max(0, ended - started),
    attempts: job.attempts,
    cancelRequestedAt: job.cancelRequestedAt,
    interrupted,
    warnings: job.warnings,
  }
}

/**
 * The jobs in the states asked for, in three groups of at most `limit` each: queued jobs in queue
 * order (from the head of the queue), running ones, then ended ones (succeeded and failed
 * together) newest first, by when they were queued.
 */
export async function listJobs(store: Store, states: readonly JobState[], limit: number, now = Date.now()): Promise<JobView[]> {
  const wanted = (state: JobState) => states.includes(state)
  // One read transaction (deferred: it takes no write lock): a job claimed between two of the
  // reads would show twice, or not at all.
  return await store.readTransaction(async () => {
    const queued = wanted('queued') ? await store.jobs.list({ states: ['queued'], limit, oldestFirst: true }) : []
    const running = wanted('running') ? await store.jobs.list({ states: ['running'], limit, oldestFirst: true }) : []
    const ended = (['succeeded', 'failed'] as const).filter(wanted)
    const finished = ended.length > 0 ? await store.jobs.list({ states: ended, limit }) : []
    return Promise.all([...queued.map((job, i) => viewJob(store, job, now, i + 1)), ...[...running, ...finished].map((job) => viewJob(store, job, now))])
  })
}
