/**
 * The parse queue as clients see it: `ParseStatusResponse` of Context7's enterprise API
 * (`activeParses` by project), plus the recent failures with their reasons.
 */
import { formatLibraryId } from '../library-id.js'
import type { Store } from '../store/index.js'
import type { Job } from '../store/jobs.js'

export interface ParseJobStatus {
  jobId: number
  kind: string
  status: 'queued' | 'parsing'
  position?: number
  createdAt?: string
  startedAt?: string
  duration?: number
  statusMessage?: string
}

export interface FailedParse {
  project: string
  jobId: number
  kind: string
  error: string
  message: string
  finishedAt: string | null
}

export interface ParseStatusResponse {
  activeParses: Record<string, ParseJobStatus>
  recentFailures: FailedParse[]
}

function projectOf(store: Store, job: Job): string {
  const library = job.libraryPk === null ? undefined : store.libraries.byPk(job.libraryPk)
  if (!library) return `job-${job.pk}`
  const version = job.versionPk === null ? undefined : store.libraries.versionByPk(job.versionPk)
  return formatLibraryId({ id: library.id, version: version?.tag || undefined })
}

export function parseStatus(store: Store, now = Date.now()): ParseStatusResponse {
  const activeParses: Record<string, ParseJobStatus> = {}
  const active = store.jobs.list({ states: ['queued', 'running'], limit: 1000 }).reverse()
  let position = 0
  for (const job of active) {
    const project = projectOf(store, job)
    if (job.state === 'queued') {
      position++
      activeParses[project] = { jobId: job.pk, kind: job.kind, status: 'queued', position, createdAt: job.createdAt }
    } else {
      activeParses[project] = {
        jobId: job.pk,
        kind: job.kind,
        status: 'parsing',
        startedAt: job.startedAt ?? undefined,
        duration: job.startedAt ? Math.max(0, (now - Date.parse(job.startedAt)) / 1000) : 0,
        statusMessage: job.statusMessage ?? undefined,
      }
    }
  }
  const recentFailures = store.jobs.list({ states: ['failed'], limit: 20 }).map((job) => ({
    project: projectOf(store, job),
    jobId: job.pk,
    kind: job.kind,
    error: job.errorCode ?? 'internal_error',
    message: job.errorMessage ?? '',
    finishedAt: job.finishedAt,
  }))
  return { activeParses, recentFailures }
}
