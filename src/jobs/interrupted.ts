/**
 * A job left `running` by a process that is gone: a `lectern add --wait` killed while it ran the
 * job itself, with no server to take it over. Its row says `running` until a server starts and
 * queues it again (worker.ts), so the views show it as interrupted instead, from the runner the
 * claim recorded (its pid and host name). A runner on another host is taken at its word.
 */
import os from 'node:os'
import type { Job } from '../store/jobs.js'

/** Whether the job's row says running while the process that claimed it no longer exists. */
export function isInterrupted(job: Job): boolean {
  if (job.state !== 'running' || job.runner === null || job.runner.host !== os.hostname()) return false
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
  `interrupted: the process that ran it (pid ${job.runner?.pid}) is gone; it runs again when \`lectern serve\` starts, or cancel it`
