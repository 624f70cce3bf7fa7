/**
 * Who runs a job, and for how long it may be trusted to. Every runner (a server's job process, a
 * CLI that runs the queue itself) has an id of its own: the job it claims records that id as its
 * owner and a lease, which the runner renews while the job runs. A job whose lease has lapsed was
 * left by a runner that died (SIGKILL, a lost host) or lost the database longer than the lease,
 * and any runner queues it again to re-run from its start. Every write that ends a job, requeues
 * it or swaps in the set it built names the owner, so a runner that lost its lease cannot
 * overwrite what the runner that took the job over does.
 *
 * Replicas compare leases written by each other's clocks: their clocks must agree to well within
 * the lease (NTP does; docs/scaling.md). Any runner can run any job: the files a job reads are
 * where every runner finds them (src/sources/input-files.ts).
 */
import { randomUUID } from 'node:crypto'

/** The lease of a running job unless `jobs.leaseSeconds` says otherwise: how long a dead runner's job waits before another runner re-runs it. */
export const DEFAULT_LEASE_MS = 30_000

export interface JobRunnerIdentity {
  /** This runner's id, recorded as the owner of the jobs it claims. */
  owner: string
  /** How long a claim or a renewal holds a job. */
  leaseMs: number
}

export function newRunnerIdentity(leaseMs = DEFAULT_LEASE_MS): JobRunnerIdentity {
  return { owner: randomUUID(), leaseMs }
}

/** The end of a lease taken or renewed now. */
export const leaseEnd = (leaseMs: number, now = Date.now()): string => new Date(now + leaseMs).toISOString()

/** How often a running job's lease is renewed: six times a lease, so a few missed renewals (a slow database) do not lose it. */
export const renewEvery = (leaseMs: number): number => Math.max(200, Math.floor(leaseMs / 6))

/**
 * Whether a running job's lease has lapsed: its runner is gone, or was cut off longer than the
 * lease. A running job without a lease was claimed before leases existed (migration 0026), by a
 * runner that is gone since.
 */
export const leaseLapsed = (leaseUntil: string | null, now = new Date().toISOString()): boolean => leaseUntil === null || leaseUntil < now
