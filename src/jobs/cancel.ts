/**
 * Cancelling a job, from any process (an admin's request to any serving process, the CLI).
 *
 * A queued job ends at once: failed with `cancelled`, its version settled as after any failure
 * (a version that serves a set keeps serving it; one that never had a set is in error, so adding
 * the library again retries it). A running job runs in exactly one process, which is often not
 * this one: the request is recorded on the job's row, and the worker running the job polls for
 * it and aborts the job (worker.ts), which then ends as failed with `cancelled` like a queued one,
 * its half-built set dropped and its work directory removed. An ended job cannot be cancelled.
 */
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import { JobNotHeldError, requireJob, type Job } from '../store/jobs.js'
import { isInterrupted } from './interrupted.js'
import { failJob } from './version-outcome.js'

/** The reason a cancelled job records, shown to admins and by /v2/context for a library that never finished. */
export function cancelledReason(jobPk: number, when: 'queued' | 'running'): string {
  return `Job ${jobPk} was cancelled while ${when}; refresh the library, or add it again, to run it anew.`
}

/** `by` names who asked, for the job's log (an admin's email, or the CLI). */
export async function cancelJob(store: Store, jobPk: number, by: string): Promise<Job> {
  try {
    return await cancelOnce(store, jobPk, by)
  } catch (err) {
    // A runner claimed the queued job (or took over the interrupted one) as it was being ended:
    // it is running now, and its runner is asked instead.
    if (!(err instanceof JobNotHeldError)) throw err
    return await cancelOnce(store, jobPk, by)
  }
}

/**
 * One write transaction. A claim does not wait for the write lock (store/jobs.ts), so the job's
 * end names the owner it was read with, and fails with JobNotHeldError if a runner came between.
 */
async function cancelOnce(store: Store, jobPk: number, by: string): Promise<Job> {
  return await store.transaction(async (): Promise<Job> => {
    const job = await requireJob(store.jobs, jobPk)
    if (job.state === 'queued') {
      const reason = cancelledReason(jobPk, 'queued')
      await failJob(store, job, 'cancelled', reason)
      await store.jobLogs.append(jobPk, [{ time: new Date().toISOString(), level: 'warn', message: 'job cancelled while queued', fields: { by } }])
    } else if (isInterrupted(job)) {
      // No process runs it to notice the request: it ends here, as a dead process's cancelled job does at the next start.
      await failJob(store, job, 'cancelled', cancelledReason(jobPk, 'running'))
      await store.jobLogs.append(jobPk, [{ time: new Date().toISOString(), level: 'warn', message: 'job cancelled after its process was gone', fields: { by } }])
    } else if (job.state === 'running') {
      // The worker running it logs the request when it sees it: its own lines are still buffered.
      await store.jobs.requestCancel(jobPk, by)
    } else {
      throw new LecternError('job_not_active', `Job ${jobPk} has already ${job.state}; only a queued or running job can be cancelled.`)
    }
    return (await store.jobs.byPk(jobPk))!
  })
}
