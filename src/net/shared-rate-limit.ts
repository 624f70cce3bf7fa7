/**
 * Rate limits that hold across the replicas of a PostgreSQL install. Each replica decides every
 * request from memory, as RateLimiter does, counting what it granted itself and what the other
 * replicas had granted when it last heard: every SYNC_MS it adds what it granted since to the
 * database (rate_counts, summed per caller and window) and reads back each caller's total.
 *
 * Guarantee: a caller limited to N per window gets N in total over all replicas, give or take what
 * the other replicas grant it between two syncs: at most (replicas - 1) times what it asks of each
 * replica in SYNC_MS (documented as the slack). While the database cannot be reached, each replica
 * goes on counting with what it knew, and adds its counts once it can. The request path never
 * waits on the database. Callers are stored as hashes, never as addresses or accounts.
 */
import { createHash } from 'node:crypto'
import type { RateLimitSettings } from '../config.js'
import type { RateCountsRepository } from '../store/rate-counts.js'
import { decisionOf, limitOf, windowOf, type RateBucket, type RateLimitDecision } from './rate-limit.js'

/** How often a replica adds its counts to the database and reads the totals back. */
export const SYNC_MS = 1000

interface Window {
  /** Granted by this replica in the current window. */
  mine: number
  /** Granted by this replica and not yet added to the database. */
  unsynced: number
  /** The caller's total in the database, less what this replica added to it: what the others granted. */
  others: number
  /** What this replica has added to the database in this window. */
  added: number
}

export interface SyncLog {
  warn(obj: object, msg: string): void
}

const hashOf = (caller: string): string => createHash('sha256').update(caller).digest('base64url').slice(0, 22)

export class SharedRateLimiter {
  private windows = new Map<string, Window>()
  /** The start (ms) of the window the counts are for. */
  private start = 0
  private readonly timer: NodeJS.Timeout
  private syncing: Promise<void> = Promise.resolve()
  private failing = false
  /** The window whose start last pruned the windows before the previous one. */
  private prunedFor = 0

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly counts: RateCountsRepository,
    private readonly log: SyncLog,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => void this.sync(), SYNC_MS)
    this.timer.unref()
  }

  take(caller: string, bucket: RateBucket, multiplier = 1): RateLimitDecision {
    const limit = limitOf(this.settings, bucket, multiplier)
    const fixed = windowOf(this.settings.windowSeconds, this.now())
    if (limit <= 0) return decisionOf(true, 0, 0, fixed)
    const { start } = fixed
    if (start !== this.start) {
      // Counts of a window that ended no longer matter to anyone.
      this.start = start
      this.windows = new Map()
    }
    let window = this.windows.get(caller)
    if (!window) this.windows.set(caller, (window = { mine: 0, unsynced: 0, others: 0, added: 0 }))
    const allowed = window.mine + window.others < limit
    if (allowed) {
      window.mine++
      window.unsynced++
    }
    return decisionOf(allowed, limit, window.mine + window.others, fixed)
  }

  /** Adds this replica's new counts and reads the totals back; one sync at a time. */
  sync(): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncOnce())
    return this.syncing
  }

  private async syncOnce(): Promise<void> {
    const { start, windows } = this
    if (windows.size === 0) return
    const entries = [...windows].map(([caller, window]) => ({ caller: hashOf(caller), window, count: window.unsynced }))
    try {
      const totals = await this.counts.add(start / 1000, entries.map(({ caller, count }) => ({ caller, count })))
      for (const { caller, window, count } of entries) {
        window.unsynced -= count
        window.added += count
        const total = totals.get(caller)
        if (total !== undefined) window.others = Math.max(0, total - window.added)
      }
      // Once a window, on every replica: a delete of nothing costs little.
      if (this.prunedFor !== start) {
        this.prunedFor = start
        await this.counts.prune(start / 1000 - this.settings.windowSeconds)
      }
      this.failing = false
    } catch (err) {
      if (!this.failing) this.log.warn({ err }, 'could not share the rate-limit counts with the other replicas (the database is unreachable?); each counts alone until it can')
      this.failing = true
    }
  }

  /** Stops syncing, after adding what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer)
    await this.sync()
  }
}
