/**
 * The dashboard's usage report (`GET /api/usage`): requests per UTC day, library, transport and
 * client over the last 7, 30 or 90 days, today included, read from usage_daily. Counts still
 * pending in this process are flushed first; another worker's appear after its next flush.
 */
import type { Store } from '../store/index.js'
import type { UsageTransport } from '../store/usage.js'
import type { UsageRecorder } from './recorder.js'

export const USAGE_WINDOWS = [7, 30, 90] as const
export type UsageWindow = (typeof USAGE_WINDOWS)[number]

export const USAGE_TRANSPORTS: UsageTransport[] = ['rest-txt', 'rest-json', 'mcp-http', 'mcp-stdio']

type Counts = Record<string, number>

export interface UsageReport {
  days: UsageWindow
  /** First and last day of the window (YYYY-MM-DD, UTC). */
  from: string
  to: string
  totals: { requests: number; byTransport: Counts }
  /** Every day of the window, oldest first; days without requests count 0. */
  byDay: Array<{ day: string; requests: number; byTransport: Counts }>
  /** Libraries with requests in the window, most asked first. */
  byLibrary: Array<{ libraryId: string; requests: number; byTransport: Counts; byClient: Counts }>
}

const DAY_MS = 86_400_000
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10)
const zeroTransports = (): Counts => Object.fromEntries(USAGE_TRANSPORTS.map((t) => [t, 0]))

export async function usageReport(store: Store, usage: UsageRecorder, days: UsageWindow, now = new Date()): Promise<UsageReport> {
  await usage.flushSoftly()
  const to = dayOf(now.getTime())
  const from = dayOf(now.getTime() - (days - 1) * DAY_MS)
  const rows = await store.usage.between(from, to)

  const byDay = new Map<string, UsageReport['byDay'][number]>()
  for (let i = days - 1; i >= 0; i--) {
    const day = dayOf(now.getTime() - i * DAY_MS)
    byDay.set(day, { day, requests: 0, byTransport: zeroTransports() })
  }
  const byLibrary = new Map<string, UsageReport['byLibrary'][number]>()
  const totals = { requests: 0, byTransport: zeroTransports() }
  for (const row of rows) {
    const day = byDay.get(row.day)!
    let library = byLibrary.get(row.libraryId)
    if (!library) {
      library = { libraryId: row.libraryId, requests: 0, byTransport: zeroTransports(), byClient: {} }
      byLibrary.set(row.libraryId, library)
    }
    for (const counts of [day, library, totals]) {
      counts.requests += row.requests
      counts.byTransport[row.transport] = (counts.byTransport[row.transport] ?? 0) + row.requests
    }
    library.byClient[row.client] = (library.byClient[row.client] ?? 0) + row.requests
  }
  return {
    days,
    from,
    to,
    totals,
    byDay: [...byDay.values()],
    byLibrary: [...byLibrary.values()].sort((a, b) => b.requests - a.requests || a.libraryId.localeCompare(b.libraryId)),
  }
}
