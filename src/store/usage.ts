/**
 * Usage counters. Requests are counted in memory and written in one transaction per flush, so
 * serving a question never turns into a database write on the request path. At most the last
 * flush interval of counts is lost if the process is killed.
 */
import type { Db } from './db.js'

export type UsageTransport = 'rest-txt' | 'rest-json' | 'mcp-http' | 'mcp-stdio'

export interface UsageRow {
  day: string
  libraryPk: number
  client: string
  transport: UsageTransport
  requests: number
}

const CLIENT = /^[a-z0-9][a-z0-9._-]{0,39}$/

/** A client kind from an X-Context7-Source header: a short token, or 'other' for anything else. */
export function clientKind(header: string | string[] | undefined, fallback: string): string {
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase()
  if (!value) return fallback
  return CLIENT.test(value) ? value : 'other'
}

export class UsageRecorder {
  private pending = new Map<string, UsageRow>()
  private readonly upsert
  private readonly select

  constructor(private readonly db: Db) {
    this.upsert = db.prepare(
      `INSERT INTO usage_daily (day, library_pk, client, transport, requests) VALUES (@day, @libraryPk, @client, @transport, @requests)
       ON CONFLICT (day, library_pk, client, transport) DO UPDATE SET requests = requests + excluded.requests`,
    )
    this.select = db.prepare<[number], { day: string; library_pk: number; client: string; transport: UsageTransport; requests: number }>(
      'SELECT * FROM usage_daily WHERE library_pk = ? ORDER BY day, client, transport',
    )
  }

  /**
   * The live sets of the default versions of libraries asked in the last `days` days, most
   * asked first: the ones worth loading before their first request.
   */
  mostAskedSets(days: number, now = new Date()): number[] {
    const since = new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10)
    return this.db
      .prepare<[string], { setPk: number }>(
        `SELECT v.current_set AS setPk FROM library_versions v
         JOIN (SELECT library_pk, SUM(requests) AS n FROM usage_daily WHERE day >= ? GROUP BY library_pk) u ON u.library_pk = v.library_pk
         WHERE v.tag = '' AND v.current_set IS NOT NULL ORDER BY u.n DESC, v.library_pk`,
      )
      .all(since)
      .map((row) => row.setPk)
  }

  record(libraryPk: number, client: string, transport: UsageTransport, now = new Date()): void {
    const day = now.toISOString().slice(0, 10)
    const key = `${day}|${libraryPk}|${client}|${transport}`
    const row = this.pending.get(key)
    if (row) row.requests++
    else this.pending.set(key, { day, libraryPk, client, transport, requests: 1 })
  }

  /**
   * Writes the pending counts; a library removed meanwhile simply loses its counts. When the
   * write fails (a full disk), the counts stay pending for the next flush and the error is thrown.
   */
  flush(): void {
    if (this.pending.size === 0 || !this.db.open) return
    const rows = this.pending
    this.pending = new Map()
    const existing = this.db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM libraries WHERE pk = ?')
    try {
      this.db.transaction(() => {
        for (const row of rows.values()) if (existing.get(row.libraryPk)!.n > 0) this.upsert.run(row)
      })()
    } catch (err) {
      for (const [key, row] of rows) {
        const later = this.pending.get(key)
        this.pending.set(key, later ? { ...row, requests: row.requests + later.requests } : row)
      }
      throw err
    }
  }

  /** Flushes if it can; reads answer from what is stored when the disk refuses the write. */
  flushSoftly(onError: (err: unknown) => void = () => {}): void {
    try {
      this.flush()
    } catch (err) {
      onError(err)
    }
  }

  forLibrary(libraryPk: number): UsageRow[] {
    this.flushSoftly()
    return this.select.all(libraryPk).map((r) => ({ day: r.day, libraryPk: r.library_pk, client: r.client, transport: r.transport, requests: r.requests }))
  }
}
