/**
 * A job left `running` by a runner that is gone: its lease lapsed (lease.ts), or the process that
 * claimed it on this host no longer exists (a `lectern add --wait` killed while it ran the job
 * itself, seen at once rather than a lease later). Its row says `running` until a runner queues
 * it again (worker.ts), so the views show it as interrupted instead, and a cancel ends it at once.
 * A runner on another host is taken at its lease's word.
 */
import os from 'node:os'
import type { Job } from '../store/jobs.js'
import { leaseLapsed } from './lease.js'

/** Whether the job's row says running while the runner that claimed it is gone. */
export function isInterrupted(job: Job): boolean {
  if (job.state !== 'running') return false
  if (leaseLapsed(job.leaseUntil)) return true
  if (job.runner === null || job.runner.host !== os.hostname()) return false
  try {
    process.kill(job.runner.pid, 0)
    return false
  } catch (err) {
    // EPERM: the process exists, as another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** The status line of an interrupted job. */
export const interruptedProgress = (job: Job) =>
  `interrupted: the process that ran it (pid ${job.runner?.pid} on ${job.runner?.host}) is gone; it runs again when a server takes it over, or cancel it`
