/**
 * The rate limiter of a worker process: every counted request is asked of the primary, which
 * holds the only counters (src/rate-limit.ts), so the limits hold whichever worker a request
 * reaches. Splitting a limit between the workers instead (each enforcing limit/N) would refuse
 * too early: cluster hands out connections, not requests, round-robin, and a client on one
 * keep-alive connection stays on one worker. The question costs one IPC round trip (tens of
 * microseconds) per counted request; callers whose limit is 0 (unlimited) are answered here.
 */
import type { RateLimitSettings } from '../../src/config.js'
import { RateLimiter, type RateLimitCounter, type RateLimitDecision } from '../../src/rate-limit.js'
import type { FromWorker } from './messages.js'

interface Pending {
  resolve(decision: RateLimitDecision): void
  reject(err: Error): void
}

export class RateLimitClient implements RateLimitCounter {
  /** Answers unlimited callers without a round trip: a limit of 0 keeps no counter. */
  private readonly unlimited: RateLimiter
  private readonly pending = new Map<number, Pending>()
  private nextId = 0

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly send: (message: FromWorker) => void,
  ) {
    this.unlimited = new RateLimiter(settings)
  }

  take(caller: string, keyed: boolean): RateLimitDecision | Promise<RateLimitDecision> {
    if ((keyed ? this.settings.keyed : this.settings.anonymous) <= 0) return this.unlimited.take(caller, keyed)
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.send({ type: 'rate-limit', id, caller, keyed })
    })
  }

  /** The primary's answer to question `id`. */
  answer(id: number, decision: RateLimitDecision): void {
    this.pending.get(id)?.resolve(decision)
    this.pending.delete(id)
  }

  /** The primary is gone: no question will be answered (the worker is exiting). */
  failAll(err: Error): void {
    for (const pending of this.pending.values()) pending.reject(err)
    this.pending.clear()
  }
}
