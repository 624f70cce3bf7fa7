/**
 * Claiming jobs by hand, as a runner would (src/jobs/lease.ts): a test that plays the worker
 * claims as `testClaimer`, whose lease outlasts the test, and ends what it claimed as `heldByTest`.
 */
import type { JobClaimer } from '../../src/store/jobs.js'

export const testClaimer: JobClaimer = { owner: 'test-runner', leaseUntil: '9999-12-31T00:00:00.000Z' }

/** A job `testClaimer` claimed, as the writes that end it name it. */
export const heldByTest = (pk: number) => ({ pk, owner: testClaimer.owner })
