/**
 * The job queue in the database. Any process inserts; runners (a server's job process, a CLI
 * `--wait` when no server runs; several replicas on PostgreSQL) each claim the oldest queued job
 * they can run, in one statement that two runners never both win (on PostgreSQL, skipping rows
 * another claim has locked). A claim records the runner as the job's owner with a lease that it
 * renews while the job runs (src/jobs/lease.ts); the writes that end or requeue a running job name
 * its owner, so a runner whose lease lapsed cannot overwrite the job's later life. A job whose
 * lease lapsed is queued again, to re-run from its start.
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
  /** The runner that holds the running job (src/jobs/lease.ts), and until when, unless it renews. */
  owner: string | null
  leaseUntil: string | null
}

/** The runner that claims a job, as the claim records it (src/jobs/lease.ts). */
export interface JobClaimer {
  owner: string
  /** The lease's end, an ISO time. */
  leaseUntil: string
}

/**
 * A write that needed the job to be held by its owner found it held by another, or ended: its
 * lease lapsed and it was queued again (and maybe claimed), or it was ended as interrupted.
 */
export class JobNotHeldError extends Error {
  constructor(readonly jobPk: number) {
    super(`Job ${jobPk} is no longer held by this runner: its lease lapsed and another runner took it over, or it was ended as interrupted.`)
    this.name = 'JobNotHeldError'
  }
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
  owner: string | null
  lease_until: string | null
  run_again: number | boolean
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
  owner: r.owner,
  leaseUntil: r.lease_until,
})

export interface JobsRepository {
  /**
   * Queues a job. A library version has one queued or running job at most (migration 0024's
   * unique index): a second is refused with library_busy, whoever checked before.
   */
  enqueue(job: NewJob): Promise<Job>
  /**
   * Claims the oldest queued job for `claimer`, with this
   * process's pid and host name. Two claims never take the same job.
   */
  claimNext(claimer: JobClaimer): Promise<Job | undefined>
  /** Extends the lease of a job `owner` holds; false when it holds it no more (JobNotHeldError's cases). */
  renewLease(pk: number, owner: string, leaseUntil: string): Promise<boolean>
  /**
   * Throws JobNotHeldError unless `owner` holds the running job; inside a write transaction, the
   * job's row stays locked until it ends, so no runner takes the job over before that transaction's
   * writes land.
   */
  requireHeld(pk: number, owner: string): Promise<void>
  setStatus(pk: number, message: string): Promise<void>
  /**
   * Ends a job. A running job's end names its owner (`job.owner`): a job that owner no longer holds
   * is left alone and JobNotHeldError thrown. A queued job (a cancel) has no owner to name.
   */
  succeed(job: Pick<Job, 'pk' | 'owner'>, message?: string, warnings?: number): Promise<void>
  fail(job: Pick<Job, 'pk' | 'owner'>, code: string, message: string): Promise<void>
  /**
   * The running jobs whose lease lapsed before `now` (or every running job, with `now` undefined:
   * a runner that knows it is the only one, SQLite's lock holder), oldest first.
   */
  lapsed(now?: string): Promise<Job[]>
  /**
   * Queues a running job again, at its place in the queue, if its owner is still `job.owner` (and,
   * with `lapsedBefore`, its lease still lapsed then): a stop interrupted it, or its runner is gone;
   * false when someone else got to it first, or its owner renewed it. A job asked to cancel is not queued again.
   */
  requeue(job: Pick<Job, 'pk' | 'owner'>, reason: string, lapsedBefore?: string): Promise<boolean>
  /**
   * Asks that the running ingest of a version be queued once more when it ends (unless cancelled):
   * its source changed after it began, so what it read may already be old. False when no ingest
   * of the version is running.
   */
  runAgain(versionPk: number): Promise<boolean>
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
  /** Every queued or running job of a kind, oldest first: what still needs its input. */
  activeOfKind(kind: string): Promise<Job[]>
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
  // A running job is written only by its owner (null matches a queued job, which has none).
  const held = `owner IS NOT DISTINCT FROM ?`
  // The secret is erased when a job ends: a finished job has no reason to keep a token.
  // A job asked to run again (runAgain) is queued anew in the same transaction, without the one-off
  // token its first run had; one cancelled, or asked to be, is not.
  const finish = (job: Pick<Job, 'pk' | 'owner'>, state: 'succeeded' | 'failed', message: string, error: { code: string; message: string } | null, warnings: number) =>
    sql.transaction(async () => {
      const ended = await sql.get<JobRow>(
        `UPDATE jobs SET state = ?, status_message = ?, error_code = ?, error_message = ?, finished_at = ?, warnings = ?, secret = NULL, lease_until = NULL
         WHERE pk = ? AND state IN ('queued', 'running') AND ${held} RETURNING *`,
        [state, message, error?.code ?? null, error?.message ?? null, nowIso(), warnings, job.pk, job.owner],
      )
      if (!ended) throw new JobNotHeldError(job.pk)
      if (!ended.run_again || error?.code === 'cancelled' || ended.cancel_requested_at !== null) return
      await sql.run(`INSERT INTO jobs (kind, library_pk, version_pk, payload, state, created_at) VALUES (?, ?, ?, ?, 'queued', ?)`, [
        ended.kind,
        ended.library_pk,
        ended.version_pk,
        ended.payload,
        nowIso(),
      ])
    })

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
    // One statement, outside the write lock: SQLite runs it whole, and on PostgreSQL the row it
    // picks is locked, so a second runner's claim skips to the next queued job instead of waiting
    // for this one and then finding it taken. A job cancelled meanwhile is no longer queued.
    async claimNext(claimer) {
      const claimed = await sql.get<JobRow>(
        `UPDATE jobs SET state = 'running', started_at = ?, attempts = attempts + 1, status_message = 'started', runner_pid = ?, runner_host = ?, owner = ?, lease_until = ?
         WHERE pk = (SELECT pk FROM jobs WHERE state = 'queued' ORDER BY pk LIMIT 1${sql.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''})
           AND state = 'queued'
         RETURNING *`,
        [nowIso(), THIS_PROCESS.pid, THIS_PROCESS.host, claimer.owner, claimer.leaseUntil],
      )
      return claimed && toJob(claimed)
    },
    renewLease: async (pk, owner, leaseUntil) => (await sql.run(`UPDATE jobs SET lease_until = ? WHERE pk = ? AND owner = ? AND state = 'running'`, [leaseUntil, pk, owner])).changes === 1,
    async requireHeld(pk, owner) {
      // An update, not a read: it takes the row's lock, which a read does not.
      const { changes } = await sql.run(`UPDATE jobs SET owner = owner WHERE pk = ? AND owner = ? AND state = 'running'`, [pk, owner])
      if (changes === 0) throw new JobNotHeldError(pk)
    },
    async setStatus(pk, message) {
      await sql.run('UPDATE jobs SET status_message = ? WHERE pk = ?', [message, pk])
    },
    async succeed(job, message = 'done', warnings = 0) {
      await finish(job, 'succeeded', message, null, warnings)
    },
    async fail(job, code, message) {
      await finish(job, 'failed', 'failed', { code, message }, 0)
    },
    lapsed: async (now) =>
      (
        await sql.all<JobRow>(
          `SELECT * FROM jobs WHERE state = 'running'${now === undefined ? '' : ' AND (lease_until IS NULL OR lease_until < ?)'} ORDER BY pk`,
          now === undefined ? [] : [now],
        )
      ).map(toJob),
    // Ingests only: what another kind of job reads (an import's file) is not a source that moves.
    runAgain: async (versionPk) =>
      (await sql.run(`UPDATE jobs SET run_again = TRUE WHERE version_pk = ? AND state = 'running' AND kind = 'ingest'`, [versionPk])).changes === 1,
    requeue: async (job, reason, lapsedBefore) =>
      (
        await sql.run(
          // Queued again, it reads its source anew: a run-again mark is spent.
          `UPDATE jobs SET state = 'queued', status_message = ?, owner = NULL, lease_until = NULL, run_again = FALSE
           WHERE pk = ? AND state = 'running' AND cancel_requested_at IS NULL AND ${held}${lapsedBefore === undefined ? '' : ' AND (lease_until IS NULL OR lease_until < ?)'}`,
          [reason, job.pk, job.owner, ...(lapsedBefore === undefined ? [] : [lapsedBefore])],
        )
      ).changes === 1,
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
    activeOfKind: async (kind) => (await sql.all<JobRow>(`SELECT * FROM jobs WHERE kind = ? AND state IN ('queued', 'running') ORDER BY pk`, [kind])).map(toJob),
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
