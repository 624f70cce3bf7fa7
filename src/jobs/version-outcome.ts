/**
 * The state a job leaves its library version in, whoever ends the job (the worker, a cancel of a
 * queued job, the start-up after a crash): finalized while the version serves a set, else error
 * (after a failure) or initial (waiting for a job to build one). Never `processing` without a job.
 */
import type { Job } from '../store/jobs.js'
import type { Store } from '../store/index.js'

/** A failed job: a version that serves a set keeps serving it, with the error noted; one that serves none is in error. */
export async function markVersionFailed(store: Store, versionPk: number, code: string, message: string): Promise<void> {
  const version = await store.libraries.versionByPk(versionPk)
  if (!version) return
  await store.libraries.setVersionState(version.pk, version.currentSet === null ? 'error' : 'finalized', { code, message })
}

/**
 * Ends a job failed with `code` and `message`, and leaves its version as after any failure; the
 * caller holds the transaction. A running job is ended only while `job.owner` holds it (JobNotHeldError).
 */
export async function failJob(store: Store, job: Job, code: string, message: string): Promise<void> {
  await store.jobs.fail(job, code, message)
  if (job.versionPk !== null) await markVersionFailed(store, job.versionPk, code, message)
}

/**
 * A version still `processing` after its job ended got no new set (unchanged source, shutdown,
 * a dead process): it serves its live set, or waits for a job to build one.
 */
export async function settleVersion(store: Store, versionPk: number): Promise<void> {
  const version = await store.libraries.versionByPk(versionPk)
  if (version?.state !== 'processing') return
  await store.libraries.setVersionState(versionPk, version.currentSet !== null ? 'finalized' : 'initial')
}
