/**
 * Waiting for a job from a CLI. When a server holds the data directory (on PostgreSQL: when a
 * replica of the install is up, src/install/replica.ts), its worker runs the job and the CLI only
 * watches the row; when none does, the CLI runs the queue itself (on SQLite, holding the lock), so
 * `lectern add --wait` works with or without a server. On PostgreSQL a server that starts
 * meanwhile runs other jobs beside it: each runner holds its job by a lease (lease.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { LecternError } from '../errors.js'
import type { Runtime } from '../runtime.js'
import { requireJob, type Job } from '../store/jobs.js'
import { acquireDataDirLock, isLocked } from '../store/lock.js'
import { liveReplicas } from '../install/replica.js'

const POLL_MS = 250

export async function waitForJob(runtime: Runtime, jobPk: number, onProgress: (job: Job) => void = () => {}): Promise<Job> {
  const { store } = runtime
  const isDone = async () => {
    const job = await requireJob(store.jobs, jobPk)
    return job.state === 'succeeded' || job.state === 'failed'
  }
  const runQueue = async () => {
    const ticker = setInterval(() => void requireJob(store.jobs, jobPk).then(onProgress, () => {}), POLL_MS)
    try {
      await runtime.worker.drain(isDone)
    } finally {
      clearInterval(ticker)
    }
  }
  if (store.database.kind === 'postgres') {
    if ((await liveReplicas(store)).length === 0) await runQueue()
  } else if (!isLocked(store.paths.lock)) {
    const lock = acquireDataDirLock(store.paths.lock, store.paths.root)
    try {
      await runQueue()
    } finally {
      lock.release()
    }
  }
  while (!(await isDone())) {
    onProgress(await requireJob(store.jobs, jobPk))
    await sleep(POLL_MS)
  }
  return await requireJob(store.jobs, jobPk)
}

/** The failure of a finished job as the error it was, for a command's exit code. */
export function jobError(job: Job): LecternError {
  const code = (job.errorCode ?? 'internal_error') as ConstructorParameters<typeof LecternError>[0]
  return new LecternError(code, `Job ${job.pk} failed: ${job.errorMessage ?? 'unknown reason'}`)
}
