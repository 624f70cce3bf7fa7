/**
 * Waiting for a job from a CLI. When a server holds the data directory (on PostgreSQL: when a
 * replica of the install is up, src/install/replica.ts), a server's worker runs the job and the
 * CLI only watches the row; when none does, the CLI runs the queue itself (on SQLite, holding the lock), so
 * `lectern add --wait` works with or without a server. On PostgreSQL a server that starts
 * meanwhile runs other jobs beside it: each runner holds its job by a lease (lease.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { LecternError } from '../errors.js'
import type { Runtime } from '../runtime.js'
import { requireJob, type Job } from '../store/jobs.js'
import { acquireDataDirLock, isLocked } from '../store/lock.js'
import { liveReplicas } from '../install/replica.js'
import type { Store } from '../store/index.js'

const POLL_MS = 250

/** Why no server will run the jobs just queued, for a CLI to say; undefined when one will. */
export async function whyNoServerRuns(store: Store): Promise<string | undefined> {
  if (store.database.kind === 'sqlite') return isLocked(store.paths.lock) ? undefined : 'No server is running: start `lectern serve` to run the job, or pass --wait to run it here.'
  if ((await liveReplicas(store)).length > 0) return undefined
  return 'No server of this install is running: start `lectern serve` on any host to run the job, or pass --wait to run it here.'
}

/** Whether a server will run the job: see whyNoServerRuns. */
async function serverRuns(store: Store): Promise<boolean> {
  if (store.database.kind === 'sqlite') return isLocked(store.paths.lock)
  return (await liveReplicas(store)).length > 0
}

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
  const served = await serverRuns(store)
  if (!served && store.database.kind === 'postgres') await runQueue()
  else if (!served) {
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
