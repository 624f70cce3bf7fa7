/**
 * Requests granted per caller and rate-limit window, summed over every replica (migration 0027;
 * src/net/shared-rate-limit.ts says how the replicas use it).
 */
import type { Sql } from './sql.js'

export interface RateCountsRepository {
  /**
   * Adds what this replica granted in the window that starts at `windowStart` (Unix seconds) to
   * each caller's count, and returns every caller's total over all replicas.
   */
  add(windowStart: number, granted: ReadonlyArray<{ caller: string; count: number }>): Promise<Map<string, number>>
  /** Forgets the windows that started before `windowStart`; returns how many rows went. */
  prune(windowStart: number): Promise<number>
}

/** Rows per statement: well under both databases' limits on bound parameters. */
const BATCH = 500

export function createRateCountsRepository(sql: Sql): RateCountsRepository {
  return {
    async add(windowStart, granted) {
      const totals = new Map<string, number>()
      for (let i = 0; i < granted.length; i += BATCH) {
        const batch = granted.slice(i, i + BATCH)
        const rows = await sql.all<{ caller: string; count: number }>(
          `INSERT INTO rate_counts (caller, window_start, count) VALUES ${batch.map(() => '(?, ?, ?)').join(', ')}
           ON CONFLICT (caller, window_start) DO UPDATE SET count = rate_counts.count + excluded.count
           RETURNING caller, count`,
          batch.flatMap((row) => [row.caller, windowStart, row.count]),
        )
        for (const row of rows) totals.set(row.caller, row.count)
      }
      return totals
    },
    prune: async (windowStart) => (await sql.run('DELETE FROM rate_counts WHERE window_start < ?', [windowStart])).changes,
  }
}
