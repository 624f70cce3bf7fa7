/**
 * The parse queue as clients see it: `ParseStatusResponse` of Context7's enterprise API
 * (`activeParses` by project, Context7's word for a library ID pinned to a version), plus the
 * recent failures.
 *
 * What a caller sees depends on who they are (library/visibility.ts): jobs of libraries they may not see are
 * left out as if they did not exist (queue positions count only the jobs shown). Raw reasons and
 * progress name clone URLs, hosts and server paths: insiders, and a teamspace for its own
 * libraries, get the reasons (credentials redacted) and progress lines; others a failure's code
 * with its catalogue summary and no progress (library/access.ts canSeeJobDetails). A failure leaves the
 * list once a later job of the same version succeeds.
 */
import { canSeeJobDetails, describeFailure, type Caller } from '../library/access.js'
import { canSeeLibrary } from '../library/visibility.js'
import { formatLibraryId } from '../library/id.js'
import type { Store } from '../store/index.js'
import type { Job } from '../store/jobs.js'
import type { Library } from '../store/libraries.js'
import { interruptedProgress, isInterrupted } from './interrupted.js'

export interface ParseJobStatus {
  jobId: number
  kind: string
  /** `interrupted`: running when its process died (interrupted.ts); it runs again at the next server start. */
  status: 'queued' | 'parsing' | 'interrupted'
  position?: number
  createdAt?: string
  startedAt?: string
  duration?: number
  statusMessage?: string
}

export interface FailedParse {
  /** The library ID, pinned to the version the job worked on (Context7's `project`). */
  project: string
  jobId: number
  kind: string
  error: string
  message: string
  finishedAt: string | null
}

/** Failures listed, newest first. */
const RECENT_FAILURES = 20
/** Failed jobs looked through for those the caller may see. */
const FAILURES_SCANNED = 200

export interface ParseStatusResponse {
  activeParses: Record<string, ParseJobStatus>
  recentFailures: FailedParse[]
}

/**
 * The library ID (with the version) of a job the caller may see, and its library; undefined for a
 * job of a library hidden from them.
 */
async function libraryOf(store: Store, job: Job, caller: Caller): Promise<{ libraryId: string; library?: Library } | undefined> {
  const library = job.libraryPk === null ? undefined : await store.libraries.byPk(job.libraryPk)
  if (!library) return { libraryId: `job-${job.pk}` }
  if (!canSeeLibrary(caller, library)) return undefined
  const version = job.versionPk === null ? undefined : await store.libraries.versionByPk(job.versionPk)
  return { libraryId: formatLibraryId({ id: library.id, version: version?.tag || undefined }), library }
}

export async function parseStatus(store: Store, caller: Caller, now = Date.now()): Promise<ParseStatusResponse> {
  const activeParses: Record<string, ParseJobStatus> = {}
  const active = (await store.jobs.list({ states: ['queued', 'running'], limit: 1000 })).reverse()
  let position = 0
  for (const job of active) {
    const seen = await libraryOf(store, job, caller)
    if (seen === undefined) continue
    const { libraryId, library } = seen
    if (job.state === 'queued') {
      position++
      activeParses[libraryId] = { jobId: job.pk, kind: job.kind, status: 'queued', position, createdAt: job.createdAt }
    } else {
      const interrupted = isInterrupted(job)
      const details = canSeeJobDetails(caller, library)
      activeParses[libraryId] = {
        jobId: job.pk,
        kind: job.kind,
        status: interrupted ? 'interrupted' : 'parsing',
        startedAt: job.startedAt ?? undefined,
        duration: job.startedAt ? Math.max(0, (now - Date.parse(job.startedAt)) / 1000) : 0,
        statusMessage: !details ? undefined : interrupted ? interruptedProgress(job) : (job.statusMessage ?? undefined),
      }
    }
  }
  const recentFailures: FailedParse[] = []
  for (const job of await store.jobs.unresolvedFailures(FAILURES_SCANNED)) {
    const seen = await libraryOf(store, job, caller)
    if (seen === undefined) continue
    const failure = describeFailure(caller, seen.library, job.errorCode ?? 'internal_error', job.errorMessage)
    recentFailures.push({ project: seen.libraryId, jobId: job.pk, kind: job.kind, ...failure, finishedAt: job.finishedAt })
    if (recentFailures.length === RECENT_FAILURES) break
  }
  return { activeParses, recentFailures }
}

/** A job that ended as succeeded with warnings: it skipped content (a page, an include) its extraction report names. */
export interface WarnedParse {
  project: string
  jobId: number
  kind: string
  warnings: number
  message: string
  finishedAt: string | null
}

/** Jobs with warnings listed, newest first, among the newest succeeded jobs scanned. */
const RECENT_WARNINGS = 10
const SUCCEEDED_SCANNED = 100

/** The newest jobs that succeeded with warnings, of libraries the caller may see. */
export async function recentWarnings(store: Store, caller: Caller): Promise<WarnedParse[]> {
  const warned: WarnedParse[] = []
  for (const job of await store.jobs.list({ states: ['succeeded'], limit: SUCCEEDED_SCANNED })) {
    if (job.warnings === 0) continue
    const seen = await libraryOf(store, job, caller)
    if (seen === undefined) continue
    warned.push({ project: seen.libraryId, jobId: job.pk, kind: job.kind, warnings: job.warnings, message: job.statusMessage ?? '', finishedAt: job.finishedAt })
    if (warned.length === RECENT_WARNINGS) break
  }
  return warned
}
