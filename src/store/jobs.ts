/**
 * The job queue in the database. Any process inserts; one worker (the server's, or a CLI
 * `--wait` when no server runs) claims the oldest queued job in a transaction. A job found
 * `running` at start-up was cut off by a crash and is queued again, to re-run from its start.
 */
import os from 'node:os'
import { LecternError } from '../errors.js'
import { nowIso } from './db.js'
import { isUniqueViolation, type Sql } from './sql.js'

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed'

export interface Job {
  pk: number
  kind: string
  libraryPk: number | null
  versionPk: number | null
  payload: Record<string, unknown>
  /** A sealed secret (see secrets/cipher.ts); never the plain token. */
  secret: string | null
  state: JobState
  statusMessage: string | null
  errorCode: string | null
  errorMessage: string | null
  attempts: number
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
  /** When a cancel of the running job was asked for; the process that runs it stops it (jobs/cancel.ts). */
  cancelRequestedAt: string | null
  /** Who asked for the cancel (an admin's email, the CLI), for the job's log. */
  cancelRequestedBy: string | null
  /** Documents the job skipped because they could not be parsed (its log says which and why). */
  warnings: number
  /** The process that claimed the job: its pid and host name (null before the claim). */
  runner: { pid: number; host: string } | null
}

/** This process, as a job it claims records it. */
const THIS_PROCESS = { pid: process.pid, host: os.hostname() }

export interface NewJob {
  kind: string
  libraryPk?: number | null
  versionPk?: number | null
  payload?: Record<string, unknown>
  secret?: string | null
}

interface JobRow {
  pk: number
  kind: string
  library_pk: number | null
  version_pk: number | null
  payload: string
  secret: string | null
  state: JobState
  status_message: string | null
  error_code: string | null
  error_message: string | null
  attempts: number
  created_at: string
  started_at: string | null
  finished_at: string | null
  cancel_requested_at: string | null
  cancel_requested_by: string | null
  warnings: number
  runner_pid: number | null
  runner_host: string | null
}

const toJob = (r: JobRow): Job => ({
  pk: r.pk,
  kind: r.kind,
  libraryPk: r.library_pk,
  versionPk: r.version_pk,
  payload: JSON.parse(r.payload) as Record<string, unknown>,
  secret: r.secret,
  state: r.state,
  statusMessage: r.status_message,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  attempts: r.attempts,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  cancelRequestedAt: r.cancel_requested_at,
  cancelRequestedBy: r.cancel_requested_by,
  warnings: r.warnings,
  runner: r.runner_pid === null || r.runner_host === null ? null : { pid: r.runner_pid, host: r.runner_host },
})

export interface JobsRepository {
  /**
   * Queues a job. A library version has one queued or running job at most (migration 0024's
   * unique index): a second is refused with library_busy, whoever checked before.
   */
  enqueue(job: NewJob): Promise<Job>
  /** Claims the oldest queued job for this process (its pid and host name are recorded on the job). */
  claimNext(): Promise<Job | undefined>
  setStatus(pk: number, message: string): Promise<void>
  succeed(pk: number, message?: string, warnings?: number): Promise<void>
  fail(pk: number, code: string, message: string): Promise<void>
  /** Queues again every job left `running` by a process that died, except those asked to cancel; returns how many. */
  requeueInterrupted(): Promise<number>
  /** Queues a running job again, at its place in the queue: a stop interrupted it. */
  requeue(pk: number): Promise<void>
  /** Records a cancel request for a running job (the first request counts); nothing for a job not running. */
  requestCancel(pk: number, by: string): Promise<void>
  /** Who asked to cancel the job (in any process), or undefined when nobody did. */
  cancelRequester(pk: number): Promise<string | undefined>
  byPk(pk: number): Promise<Job | undefined>
  /** The queued or running job of a library version, if any. */
  activeForVersion(versionPk: number): Promise<Job | undefined>
  /** The running job of any version of a library, if any. */
  runningForLibrary(libraryPk: number): Promise<Job | undefined>
  /** Newest first, or the oldest first (queue order) with `oldestFirst`. */
  list(options?: { states?: JobState[]; limit?: number; oldestFirst?: boolean }): Promise<Job[]>
  /** The newest job of a version, whatever its state. */
  latestForVersion(versionPk: number): Promise<Job | undefined>
  /** Failed jobs, newest first, except those of a version that a later job has built successfully. */
  unresolvedFailures(limit: number): Promise<Job[]>
  /** 1-based place of a queued job in the queue. */
  queuePosition(pk: number): Promise<number>
  /** Unlinks a job from its library, so removing the library keeps the job's record. */
  detach(pk: number): Promise<void>
  /**
   * Deletes the jobs that ended before `before` (their log lines go with them), except each
   * library's newest ended job, whose outcome says how the library got its snippets; returns how many.
   */
  pruneEnded(before: Date): Promise<number>
}

export function createJobsRepository(sql: Sql): JobsRepository {
  const byPk = (pk: number) => sql.get<JobRow>('SELECT * FROM jobs WHERE pk = ?', [pk])
  const activeJob = (versionPk: number) => sql.get<JobRow>(`SELECT * FROM jobs WHERE version_pk = ? AND state IN ('queued', 'running') ORDER BY pk LIMIT 1`, [versionPk])
  const job = async (row: Promise<JobRow | undefined>) => {
    const found = await row
    return found && toJob(found)
  }
  // The secret is erased when a job ends: a finished job has no reason to keep a token.
  const finish = (pk: number, state: 'succeeded' | 'failed', message: string, error: { code: string; message: string } | null, warnings: number) =>
    sql.run('UPDATE jobs SET state = ?, status_message = ?, error_code = ?, error_message = ?, finished_at = ?, warnings = ?, secret = NULL WHERE pk = ?', [
      state,
      message,
      error?.code ?? null,
      error?.message ?? null,
      nowIso(),
      warnings,
      pk,
    ])

  return {
    async enqueue(job) {
      try {
        // A savepoint of its own: a refused insert must not undo (on PostgreSQL, abort) the caller's transaction.
        const row = await sql.transaction(() =>
          sql.get<JobRow>(`INSERT INTO jobs (kind, library_pk, version_pk, payload, secret, state, created_at) VALUES (?, ?, ?, ?, ?, 'queued', ?) RETURNING *`, [
            job.kind,
            job.libraryPk ?? null,
            job.versionPk ?? null,
            JSON.stringify(job.payload ?? {}),
            job.secret ?? null,
            nowIso(),
          ]),
        )
        return toJob(row!)
      } catch (err) {
        if (!isUniqueViolation(err) || job.versionPk == null) throw err
        const active = await activeJob(job.versionPk)
        throw new LecternError('library_busy', `The library version already has a job ${active ? `(job ${active.pk}, ${active.state})` : 'queued or running'}; wait for it to end, or cancel it.`)
      }
    },
    // One write transaction: the queue is read and the claim written under one write lock, so a
    // job another process cancels or claims meanwhile is never taken.
    claimNext: () =>
      sql.transaction(async () => {
        const row = await sql.get<JobRow>(`SELECT * FROM jobs WHERE state = 'queued' ORDER BY pk LIMIT 1`)
        if (!row) return undefined
        const claimed = await sql.get<JobRow>(
          `UPDATE jobs SET state = 'running', started_at = ?, attempts = attempts + 1, status_message = 'started', runner_pid = ?, runner_host = ?
           WHERE pk = ? AND state = 'queued' RETURNING *`,
          [nowIso(), THIS_PROCESS.pid, THIS_PROCESS.host, row.pk],
        )
        return claimed && toJob(claimed)
      }),
    async setStatus(pk, message) {
      await sql.run('UPDATE jobs SET status_message = ? WHERE pk = ?', [message, pk])
    },
    async succeed(pk, message = 'done', warnings = 0) {
      await finish(pk, 'succeeded', message, null, warnings)
    },
    async fail(pk, code, message) {
      await finish(pk, 'failed', 'failed', { code, message }, 0)
    },
    requeueInterrupted: async () =>
      (await sql.run(`UPDATE jobs SET state = 'queued', status_message = 'interrupted; queued again' WHERE state = 'running' AND cancel_requested_at IS NULL`)).changes,
    async requeue(pk) {
      await sql.run(`UPDATE jobs SET state = 'queued', status_message = 'interrupted by a stop; queued again' WHERE pk = ? AND state = 'running' AND cancel_requested_at IS NULL`, [pk])
    },
    async requestCancel(pk, by) {
      await sql.run(
        `UPDATE jobs SET cancel_requested_at = coalesce(cancel_requested_at, ?), cancel_requested_by = coalesce(cancel_requested_by, ?) WHERE pk = ? AND state = 'running'`,
        [nowIso(), by, pk],
      )
    },
    cancelRequester: async (pk) => (await sql.get<{ by: string | null }>('SELECT cancel_requested_by AS by FROM jobs WHERE pk = ?', [pk]))?.by ?? undefined,
    byPk: (pk) => job(byPk(pk)),
    activeForVersion: (versionPk) => job(activeJob(versionPk)),
    latestForVersion: (versionPk) => job(sql.get<JobRow>('SELECT * FROM jobs WHERE version_pk = ? ORDER BY pk DESC LIMIT 1', [versionPk])),
    runningForLibrary: (libraryPk) => job(sql.get<JobRow>(`SELECT * FROM jobs WHERE library_pk = ? AND state = 'running' ORDER BY pk LIMIT 1`, [libraryPk])),
    async list(options = {}) {
      const states = options.states ?? ['queued', 'running', 'succeeded', 'failed']
      const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000)
      const rows = await sql.all<JobRow>(
        `SELECT * FROM jobs WHERE state IN (${states.map(() => '?').join(',')}) ORDER BY pk ${options.oldestFirst ? 'ASC' : 'DESC'} LIMIT ?`,
        [...states, limit],
      )
      return rows.map(toJob)
    },
    // Each version's last success, found in one pass over the successes: a subquery per failed job
    // scanned the successes again for every failure (150 ms for 15,000 jobs).
    unresolvedFailures: async (limit) =>
      (
        await sql.all<JobRow>(
          `SELECT f.* FROM jobs f
             LEFT JOIN (SELECT version_pk, max(pk) AS last FROM jobs WHERE state = 'succeeded' AND version_pk IS NOT NULL GROUP BY version_pk) s
               ON s.version_pk = f.version_pk
           WHERE f.state = 'failed' AND (s.last IS NULL OR s.last < f.pk)
           ORDER BY f.pk DESC LIMIT ?`,
          [limit],
        )
      ).map(toJob),
    queuePosition: async (pk) => (await sql.get<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE state = 'queued' AND pk <= ?`, [pk]))!.n,
    async detach(pk) {
      await sql.run('UPDATE jobs SET library_pk = NULL, version_pk = NULL WHERE pk = ?', [pk])
    },
    pruneEnded: async (before) =>
      (
        await sql.run(
          `DELETE FROM jobs WHERE state IN ('succeeded', 'failed') AND finished_at < ?
             AND pk NOT IN (SELECT max(pk) FROM jobs WHERE library_pk IS NOT NULL AND state IN ('succeeded', 'failed') GROUP BY library_pk)`,
          [before.toISOString()],
        )
      ).changes,
  }
}

export async function requireJob(jobs: JobsRepository, pk: number): Promise<Job> {
  const job = await jobs.byPk(pk)
  if (!job) throw new LecternError('job_not_found', `No job with ID ${pk}.`)
  return job
}
