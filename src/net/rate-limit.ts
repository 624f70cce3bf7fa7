/**
 * Fixed-window request limits per caller (an API key, or the client address when anonymous).
 * In memory, in exactly one process per data directory: a single-process server counts itself;
 * under `serve --workers N` the primary process holds the one RateLimiter and every worker asks
 * it (server/cluster/rate-limit-client.ts), so N processes never grant N times a limit. Replicas
 * on PostgreSQL share their counts through the database instead (shared-rate-limit.ts).
 * `reset` is a Unix timestamp in seconds, as spec 8 defines RateLimit-Reset. A keyed caller's
 * limit is `rateLimit.keyed` times its plan's multiplier (src/tenancy/plans.ts; 1 without a plan).
 */
import type { RateLimitSettings } from '../config.js'

export interface RateLimitDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Unix time (s) at which the window resets. */
  reset: number
  /** Seconds until the reset, for Retry-After. */
  retryAfter: number
}

/**
 * Which limit a caller's requests count against: `rateLimit.anonymous`, `rateLimit.keyed` (times
 * the plan's multiplier) or `rateLimit.signIn` (times a multiplier for all accounts of an address).
 */
export type RateBucket = 'anonymous' | 'keyed' | 'signIn'

/** A bucket's limit per window; 0 for none. */
export function limitOf(settings: RateLimitSettings, bucket: RateBucket, multiplier = 1): number {
  return bucket === 'anonymous' ? settings.anonymous : settings[bucket] * multiplier
}

/** The fixed window `now` (ms) falls in: its start (ms), and when it resets (Unix s) and in how many seconds. */
export function windowOf(windowSeconds: number, now: number): { start: number; reset: number; retryAfter: number } {
  const windowMs = windowSeconds * 1000
  const start = now - (now % windowMs)
  return { start, reset: Math.ceil((start + windowMs) / 1000), retryAfter: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) }
}

/** The decision for a caller who has used `used` of `limit` in the window (0: no limit). */
export function decisionOf(allowed: boolean, limit: number, used: number, window: { reset: number; retryAfter: number }): RateLimitDecision {
  if (limit <= 0) return { allowed: true, limit: 0, remaining: 0, reset: window.reset, retryAfter: 0 }
  return { allowed, limit, remaining: Math.max(0, limit - used), reset: window.reset, retryAfter: window.retryAfter }
}

/** Whatever counts requests: a RateLimiter here, or the primary's, asked over IPC. */
export interface RateLimitCounter {
  take(caller: string, bucket: RateBucket, multiplier?: number): RateLimitDecision | Promise<RateLimitDecision>
}

interface Window {
  start: number
  count: number
}

export class RateLimiter implements RateLimitCounter {
  private windows = new Map<string, Window>()
  private sweptAt = 0

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  take(caller: string, bucket: RateBucket, multiplier = 1): RateLimitDecision {
    const limit = limitOf(this.settings, bucket, multiplier)
    const fixed = windowOf(this.settings.windowSeconds, this.now())
    if (limit <= 0) return decisionOf(true, 0, 0, fixed)
    const { start } = fixed
    this.sweep(start)
    let window = this.windows.get(caller)
    if (!window || window.start !== start) {
      window = { start, count: 0 }
      this.windows.set(caller, window)
    }
    const allowed = window.count < limit
    if (allowed) window.count++
    return decisionOf(allowed, limit, window.count, fixed)
  }

  /** Forgets windows that ended, once per window, so idle callers do not accumulate. */
  private sweep(currentStart: number): void {
    if (this.sweptAt === currentStart) return
    this.sweptAt = currentStart
    for (const [caller, window] of this.windows) if (window.start !== currentStart) this.windows.delete(caller)
  }
}
