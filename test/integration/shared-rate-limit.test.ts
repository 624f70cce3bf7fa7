/**
 * Rate limits that hold across replicas (src/net/shared-rate-limit.ts), on both stores: two
 * limiters on one database stand for two replicas. What one granted counts against the other once
 * both have synced; between syncs each grants from what it knew (the documented slack); counts
 * made while the database is unreachable are added once it is back; callers are stored as hashes.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import type { RateLimitSettings } from '../../src/config.js'
import { SharedRateLimiter } from '../../src/net/shared-rate-limit.js'
import { sqlOf, type Store } from '../../src/store/index.js'
import { freshStore, type StoreKind } from '../helpers/stores.js'
import { suiteTeardown } from '../helpers/tmp.js'

const serverDefer = suiteTeardown()
const LIMITS: RateLimitSettings = { anonymous: 5, keyed: 10, signIn: 3, windowSeconds: 60 }
const silent = { warn: () => {} }
/** A moment well inside a window, so a test never straddles two. */
const clock = () => 1_800_000_000_000 + 30_000

function replica(store: Store, log = silent) {
  const limiter = new SharedRateLimiter(LIMITS, store.rateCounts, log, clock)
  onTestFinished(() => limiter.close())
  return limiter
}

const granted = (limiter: SharedRateLimiter, caller: string, n: number) => Array.from({ length: n }, () => limiter.take(caller, 'keyed').allowed).filter(Boolean).length

describe.each<StoreKind>(['sqlite', 'postgres'])('rate limits shared by replicas on %s', (kind) => {
  it('grants a caller its limit in total over two replicas once they have synced, and each caller its own', async () => {
    const store = await freshStore(kind, onTestFinished, serverDefer)
    const [a, b] = [replica(store), replica(store)]
    expect(granted(a, 'key:1', 6)).toBe(6)
    expect(granted(a, 'key:2', 1)).toBe(1)
    expect(granted(b, 'key:1', 1)).toBe(1)
    expect(granted(b, 'key:2', 3)).toBe(3)
    await a.sync()
    await b.sync()
    // B knows A's 6 and its own 1.
    expect(b.take('key:1', 'keyed')).toMatchObject({ allowed: true, limit: 10, remaining: 2 })
    expect(granted(b, 'key:1', 5)).toBe(2)
    expect(b.take('key:1', 'keyed')).toMatchObject({ allowed: false, remaining: 0, retryAfter: 30 })
    await b.sync()
    await a.sync()
    expect(a.take('key:1', 'keyed').allowed).toBe(false)
    // Another caller's count is its own: 1 here and 3 there of its 10.
    expect(granted(a, 'key:2', 10)).toBe(6)
  })

  it('grants between syncs from what each replica knew: the slack is what the others granted since', async () => {
    const store = await freshStore(kind, onTestFinished, serverDefer)
    const [a, b] = [replica(store), replica(store)]
    expect(granted(a, 'ip:192.0.2.7', 5)).toBe(5)
    expect(b.take('ip:192.0.2.7', 'anonymous').allowed).toBe(true)
    await a.sync()
    await b.sync()
    expect(a.take('ip:192.0.2.7', 'anonymous')).toMatchObject({ allowed: false, remaining: 0 })
    // Stored as hashes: no address, account or key id in the table.
    const rows = await sqlOf(store).all<{ caller: string; count: number }>('SELECT caller, count FROM rate_counts')
    expect(rows).toEqual([{ caller: expect.stringMatching(/^[\w-]{22}$/), count: 6 }])
  })

  it('goes on counting alone while the database is unreachable, and adds its counts once it is back', async () => {
    const store = await freshStore(kind, onTestFinished, serverDefer)
    const warnings: string[] = []
    let down = true
    const counts = { ...store.rateCounts, add: (...args: Parameters<Store['rateCounts']['add']>) => (down ? Promise.reject(new Error('database unreachable')) : store.rateCounts.add(...args)) }
    const cutOff = new SharedRateLimiter(LIMITS, counts, { warn: (_: object, msg: string) => void warnings.push(msg) }, clock)
    onTestFinished(() => cutOff.close())
    const other = replica(store)
    expect(granted(cutOff, 'key:1', 4)).toBe(4)
    expect(granted(other, 'key:1', 1)).toBe(1)
    await cutOff.sync()
    await cutOff.sync()
    // Said once, not at every sync.
    expect(warnings).toEqual(['could not share the rate-limit counts with the other replicas (the database is unreachable?); each counts alone until it can'])
    expect(cutOff.take('key:1', 'keyed')).toMatchObject({ allowed: true, remaining: 5 })
    // Back: its 5 are added, and the other replica counts them.
    down = false
    await cutOff.sync()
    await other.sync()
    expect(other.take('key:1', 'keyed')).toMatchObject({ allowed: true, remaining: 3 })
  })
})
