/**
 * What the primary and the worker processes of `lectern serve --workers N` say to each other
 * over cluster's IPC channel (JSON). Only Lectern's own processes are on either end.
 */
import type { LecternConfig } from '../../src/config.js'
import type { ErrorCode } from '../../src/errors.js'
import type { RateBucket, RateLimitDecision } from '../../src/net/rate-limit.js'

/** One request of `caller` to count against the limit of its bucket. */
export interface RateLimitQuestion {
  id: number
  caller: string
  bucket: RateBucket
  /** The plan's multiple of the keyed limit (src/tenancy/plans.ts). */
  multiplier: number
}

/** From the primary to a worker. */
export type ToWorker =
  /** The worker's number (1..N), whether it runs the jobs and the other once-only work, whether the job worker runs now (changes follow as jobs-running), and the settings the primary resolved. */
  | { type: 'start'; worker: number; runsJobs: boolean; jobsRunning: boolean; config: LecternConfig }
  /** The answers to a `rate-limit` message's questions, by id. */
  | { type: 'rate-limit'; answers: Array<{ id: number; decision: RateLimitDecision }> }
  /** Another process replaced or removed this set's files: drop what is cached about it. */
  | { type: 'forget-set'; setPk: number }
  /** Whether the job worker (in the worker that runs jobs) is running: readiness follows it. */
  | { type: 'jobs-running'; running: boolean }
  /** A job was queued by another worker: look for work now (to the worker that runs jobs). */
  | { type: 'wake-jobs' }
  /** Drain and exit 0: stop accepting, finish in-flight requests, stop the job worker. */
  | { type: 'stop' }

/** From a worker to the primary. */
export type FromWorker =
  /** The worker's message handler is in place: send `start`. */
  | { type: 'hello' }
  /** The app is built and listening. */
  | { type: 'listening'; port: number }
  /** Building or listening failed; the worker exits 1 after sending this. */
  | { type: 'start-failed'; code: ErrorCode; message: string }
  /** Count one request of each question's caller against its limit, in order. */
  | { type: 'rate-limit'; questions: RateLimitQuestion[] }
  | { type: 'forget-set'; setPk: number }
  | { type: 'jobs-running'; running: boolean }
  | { type: 'wake-jobs' }
  /** A dashboard restore was staged and answered: every worker stops, the primary applies it. */
  | { type: 'restore-staged' }

/** Whether an IPC message is one of ours (cluster's own internal messages never reach 'message' listeners). */
export function isMessage<T extends { type: string }>(message: unknown): message is T {
  return typeof message === 'object' && message !== null && typeof (message as { type?: unknown }).type === 'string'
}
