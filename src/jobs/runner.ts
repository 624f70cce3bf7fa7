/**
 * What the server, the CLI and the routes need from whatever runs jobs: the worker in this
 * thread (`Worker`), or the same worker in a process of its own (`JobProcess`, for `serve`).
 */
import type { RequestGauge } from './pace.js'

export interface JobRunner {
  /** True while jobs are being taken from the queue (readiness reports it). */
  readonly isRunning: boolean
  start(): Promise<void> | void
  /** Look for work now instead of at the next poll (after enqueueing a job). */
  wake(): void
  /** Aborts the running job (it is queued again, unless a cancel was asked) and waits for it to unwind. */
  stop(): Promise<void>
  /** Runs queued jobs until none is left or `until()` holds; for a CLI that works without a server. */
  drain(until?: () => boolean | Promise<boolean>): Promise<void>
  /** Where a runner whose jobs give way to requests (pace.ts) wants the server's requests in flight counted. */
  readonly requests?: RequestGauge
}
