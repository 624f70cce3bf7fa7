/**
 * The rate limiter of a worker process: every counted request is asked of the primary, which
 * holds the only counters (src/net/rate-limit.ts), so the limits hold whichever worker a request
 * reaches. Splitting a limit between the workers instead (each enforcing limit/N) would refuse
 * too early: cluster hands out connections, not requests, round-robin, and a client on one
 * keep-alive connection stays on one worker. The questions of one event-loop turn go in one
 * message, answered in one (an IPC round trip costs tens of microseconds of CPU on each side,
 * more than the counting); callers whose limit is 0 (unlimited) are answered here.
 */
import type { RateLimitSettings } from '../../src/config.js'
import { limitOf, RateLimiter, type RateBucket, type RateLimitCounter, type RateLimitDecision } from '../../src/net/rate-limit.js'
import type { FromWorker, RateLimitQuestion } from './messages.js'

interface Pending {
  resolve(decision: RateLimitDecision): void
  reject(err: Error): void
}

export class RateLimitClient implements RateLimitCounter {
  /** Answers unlimited callers without a round trip: a limit of 0 keeps no counter. */
  private readonly unlimited: RateLimiter
  private readonly pending = new Map<number, Pending>()
  private nextId = 0
  /** Asked during this event-loop turn, sent together at its end. */
  private unsent: RateLimitQuestion[] = []

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly send: (message: FromWorker) => void,
  ) {
    this.unlimited = new RateLimiter(settings)
  }

  take(caller: string, bucket: RateBucket, multiplier = 1): RateLimitDecision | Promise<RateLimitDecision> {
    if (limitOf(this.settings, bucket, multiplier) <= 0) return this.unlimited.take(caller, bucket)
    const id = this.nextId++
    if (this.unsent.length === 0) setImmediate(() => this.flush())
    this.unsent.push({ id, caller, bucket, multiplier })
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }))
  }

  private flush(): void {
    const questions = this.unsent
    this.unsent = []
    this.send({ type: 'rate-limit', questions })
  }

  /** The primary's answers, by question id. */
  answer(answers: Array<{ id: number; decision: RateLimitDecision }>): void {
    for (const { id, decision } of answers) {
      this.pending.get(id)?.resolve(decision)
      this.pending.delete(id)
    }
  }

  /** The primary is gone: no question will be answered (the worker is exiting). */
  failAll(err: Error): void {
    for (const pending of this.pending.values()) pending.reject(err)
    this.pending.clear()
  }
}
