import { describe, expect, it } from 'vitest'
import { RateLimiter } from '../../src/net/rate-limit.js'

describe('RateLimiter', () => {
  it('allows the limit per window, then refuses until the window resets', () => {
    let now = 1_800_000_000_000 + 15_000
    const limiter = new RateLimiter({ anonymous: 2, keyed: 5, signIn: 3, windowSeconds: 60 }, () => now)
    expect(limiter.take('ip:a', 'anonymous')).toMatchObject({ allowed: true, limit: 2, remaining: 1 })
    expect(limiter.take('ip:a', 'anonymous')).toMatchObject({ allowed: true, remaining: 0 })
    const refused = limiter.take('ip:a', 'anonymous')
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 45 })
    expect(refused.reset).toBe(Math.ceil((now - 15_000 + 60_000) / 1000))
    expect(limiter.take('ip:b', 'anonymous').allowed).toBe(true)
    expect(limiter.take('key:1', 'keyed')).toMatchObject({ allowed: true, limit: 5, remaining: 4 })
    expect(limiter.take('key:2', 'keyed', 4)).toMatchObject({ allowed: true, limit: 20, remaining: 19 })
    expect(limiter.take('sign-in:ops@example.com|a', 'signIn')).toMatchObject({ allowed: true, limit: 3, remaining: 2 })
    now += 45_000
    expect(limiter.take('ip:a', 'anonymous')).toMatchObject({ allowed: true, remaining: 1 })
  })

  it('treats 0 as unlimited', () => {
    const limiter = new RateLimiter({ anonymous: 0, keyed: 0, signIn: 0, windowSeconds: 60 })
    for (let i = 0; i < 100; i++) expect(limiter.take('ip:a', 'anonymous').allowed).toBe(true)
  })
})
