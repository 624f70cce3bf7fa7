/**
 * Usage counters. Requests are counted in memory and written in one transaction per flush, so
 * serving a question never turns into a database write on the request path. At most the last
 * flush interval of counts is lost if the process is killed.
 *
 * Besides the counts of usage_daily, a request may bring what the library metrics report
 * (src/library/metrics.ts, migration 0015): who asked through MCP (kept in memory until the
 * flush, then stored only as an HMAC under the day's salt, src/store/usage.ts), the question's
 * topics and the caller's country (reduced by ./facets.ts when recorded).
 */
import type { Store } from '../store/index.js'
import type { Facets, UsageBatch, UsageRow, UsageTransport } from '../store/usage.js'
import { countryOf, topicsOf } from './facets.js'

/** What else a request tells the metrics; each part optional. */
export interface Asked {
  /** Who asks through MCP: `key:<id>`, `user:<id>` (a session), `address:<ip>`, or `local` (stdio). */
  user?: string
  question?: string
  /** The edge proxy's country header, as received. */
  country?: string | string[]
}

const isMcp = (transport: UsageTransport) => transport === 'mcp-http' || transport === 'mcp-stdio'

const CLIENT = /^[a-z0-9][a-z0-9._-]{0,39}$/

/** A client kind from an X-Context7-Source header: a short token, or 'other' for anything else. */
export function clientKind(header: string | string[] | undefined, fallback: string): string {
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase()
  if (!value) return fallback
  return CLIENT.test(value) ? value : 'other'
}

export class UsageRecorder {
  private pending = new Map<string, UsageRow>()
  /** `day|libraryPk|client` -> the raw users asking; only in memory, hashed when written. */
  private pendingUsers = new Map<string, Set<string>>()
  /** libraryPk -> topic (or country) -> requests: counted per library, so a request builds no key strings. */
  private pendingTopics: Facets = new Map()
  private pendingCountries: Facets = new Map()
  /** The day whose older salts this process last deleted. */
  private sweptDay = ''
  /**
   * The flush under way. Flushes run one after another: a read that flushes first must also wait
   * for a flush already writing, or it would read before the counts that flush took are stored.
   */
  private flushing: Promise<void> = Promise.resolve()

  constructor(private readonly store: Pick<Store, 'usage' | 'isOpen'>) {}

  /**
   * The live sets of the default versions of libraries asked in the last `days` days, most
   * asked first: the ones worth loading before their first request.
   */
  async mostAskedSets(days: number, now = new Date()): Promise<number[]> {
    return await this.store.usage.mostAskedSets(new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10))
  }

  record(libraryPk: number, client: string, transport: UsageTransport, now = new Date(), asked: Asked = {}): void {
    const day = now.toISOString().slice(0, 10)
    const key = `${day}|${libraryPk}|${client}|${transport}`
    const row = this.pending.get(key)
    if (row) row.requests++
    else this.pending.set(key, { day, libraryPk, client, transport, requests: 1 })
    if (asked.user !== undefined && isMcp(transport)) {
      const usersKey = `${day}|${libraryPk}|${client}`
      const users = this.pendingUsers.get(usersKey)
      if (users) users.add(asked.user)
      else this.pendingUsers.set(usersKey, new Set([asked.user]))
    }
    if (asked.question !== undefined) {
      const topics = topicsOf(asked.question)
      if (topics.length > 0) {
        const counts = facetsOf(this.pendingTopics, libraryPk)
        for (const topic of topics) bump(counts, topic)
      }
    }
    bump(facetsOf(this.pendingCountries, libraryPk), countryOf(asked.country))
  }

  /**
   * Writes the pending counts; a library removed meanwhile simply loses its counts. When the
   * write fails (a full disk), the counts stay pending for the next flush and the error is thrown.
   * Resolves once every count taken before the call is stored (or put back).
   */
  flush(now = new Date()): Promise<void> {
    const run = this.flushing.then(() => this.write(now))
    this.flushing = run.catch(() => {})
    return run
  }

  private async write(now: Date): Promise<void> {
    const today = now.toISOString().slice(0, 10)
    // A process that has written counts before still writes once a day when idle: to delete the
    // salt of the day that ended. One that never has (a CLI command) does not write for nothing.
    if (!this.store.isOpen() || (this.pending.size === 0 && (this.sweptDay === today || this.sweptDay === ''))) return
    const taken: UsageBatch = { rows: this.pending, users: this.pendingUsers, topics: this.pendingTopics, countries: this.pendingCountries }
    this.pending = new Map()
    this.pendingUsers = new Map()
    this.pendingTopics = new Map()
    this.pendingCountries = new Map()
    try {
      await this.store.usage.write(taken, today)
      this.sweptDay = today
    } catch (err) {
      this.restore(taken)
      throw err
    }
  }

  /** Deletes the salts of the days that have ended: start-up housekeeping (runtime.ts recoverDataDir). */
  async forgetEndedDays(now = new Date()): Promise<void> {
    const today = now.toISOString().slice(0, 10)
    await this.store.usage.forgetSaltsBefore(today)
    this.sweptDay = today
  }

  /** Puts counts whose write failed back in front of those taken since, for the next flush. */
  private restore(taken: UsageBatch): void {
    for (const [key, row] of taken.rows) {
      const later = this.pending.get(key)
      this.pending.set(key, later ? { ...row, requests: row.requests + later.requests } : row)
    }
    for (const [key, users] of taken.users) {
      const later = this.pendingUsers.get(key)
      this.pendingUsers.set(key, later ? new Set([...users, ...later]) : users)
    }
    for (const [pk, topics] of taken.topics) for (const [topic, n] of topics) bump(facetsOf(this.pendingTopics, pk), topic, n)
    for (const [pk, countries] of taken.countries) for (const [country, n] of countries) bump(facetsOf(this.pendingCountries, pk), country, n)
  }

  /** Flushes if it can; reads answer from what is stored when the disk refuses the write. */
  async flushSoftly(onError: (err: unknown) => void = () => {}): Promise<void> {
    try {
      await this.flush()
    } catch (err) {
      onError(err)
    }
  }

  async forLibrary(libraryPk: number): Promise<UsageRow[]> {
    await this.flushSoftly()
    return await this.store.usage.forLibrary(libraryPk)
  }
}

function facetsOf(facets: Facets, libraryPk: number): Map<string, number> {
  let counts = facets.get(libraryPk)
  if (!counts) facets.set(libraryPk, (counts = new Map()))
  return counts
}

function bump(counts: Map<string, number>, key: string, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by)
}
