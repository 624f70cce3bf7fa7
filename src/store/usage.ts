/**
 * Usage counts as stored (usage_daily, and migration 0015's users, topics and countries): what
 * src/usage/recorder.ts writes at each flush and the usage report and library metrics read. A
 * day's MCP users are stored only as an HMAC under that day's salt (src/store/usage-salt.ts).
 */
import { createHmac } from 'node:crypto'
import type { Db } from './db.js'
import { DailySalt } from './usage-salt.js'

export type UsageTransport = 'rest-txt' | 'rest-json' | 'mcp-http' | 'mcp-stdio'

export interface UsageRow {
  day: string
  libraryPk: number
  client: string
  transport: UsageTransport
  requests: number
}

/** Counts per library and facet (a topic or a country). */
export type Facets = Map<number, Map<string, number>>

/** What one flush writes. */
export interface UsageBatch {
  rows: Map<string, UsageRow>
  /** `day|libraryPk|client` -> the users asking, as the recorder named them; hashed when written. */
  users: Map<string, Set<string>>
  topics: Facets
  countries: Facets
}

export interface UsageRepository {
  /**
   * Writes a flush in one transaction, and deletes the salts of days before `today`. Counts of
   * a library removed meanwhile are dropped.
   */
  write(batch: UsageBatch, today: string): void
  /** Deletes the salts of every day before `day`. */
  forgetSaltsBefore(day: string): void
  /** The live sets of the default versions of libraries asked since `since` (a day), most asked first. */
  mostAskedSets(since: string): number[]
  forLibrary(libraryPk: number): UsageRow[]
  /** Every count from day `from` to day `to`, with its library's ID. */
  between(from: string, to: string): Array<Omit<UsageRow, 'libraryPk'> & { libraryId: string }>
  /** A library's users per day and client, and distinct users per day, from day `from`. */
  users(libraryPk: number, from: string): { byClient: Array<{ day: string; client: string; users: number }>; distinct: Array<{ day: string; users: number }> }
  /** A library's most asked topics, at most `limit`, and its countries, most requests first. */
  topics(libraryPk: number, limit: number): Array<{ topic: string; count: number }>
  countries(libraryPk: number): Array<{ country: string; count: number }>
}

interface DailyRow {
  day: string
  library_pk: number
  client: string
  transport: UsageTransport
  requests: number
}

export function createUsageRepository(db: Db): UsageRepository {
  const salt = new DailySalt(db)
  const insertUser = db.prepare('INSERT OR IGNORE INTO usage_users (day, library_pk, client, user_hash) VALUES (?, ?, ?, ?)')
  const upsertTopic = db.prepare(
    'INSERT INTO usage_topics (library_pk, topic, requests) VALUES (?, ?, ?) ON CONFLICT (library_pk, topic) DO UPDATE SET requests = requests + excluded.requests',
  )
  const upsertCountry = db.prepare(
    'INSERT INTO usage_countries (library_pk, country, requests) VALUES (?, ?, ?) ON CONFLICT (library_pk, country) DO UPDATE SET requests = requests + excluded.requests',
  )
  const upsert = db.prepare(
    `INSERT INTO usage_daily (day, library_pk, client, transport, requests) VALUES (@day, @libraryPk, @client, @transport, @requests)
     ON CONFLICT (day, library_pk, client, transport) DO UPDATE SET requests = requests + excluded.requests`,
  )
  const libraryExists = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM libraries WHERE pk = ?')
  const ofLibrary = db.prepare<[number], DailyRow>('SELECT * FROM usage_daily WHERE library_pk = ? ORDER BY day, client, transport')
  const mostAsked = db.prepare<[string], { setPk: number }>(
    `SELECT v.current_set AS setPk FROM library_versions v
     JOIN (SELECT library_pk, SUM(requests) AS n FROM usage_daily WHERE day >= ? GROUP BY library_pk) u ON u.library_pk = v.library_pk
     WHERE v.tag = '' AND v.current_set IS NOT NULL ORDER BY u.n DESC, v.library_pk`,
  )
  const between = db.prepare<[string, string], { day: string; libraryId: string; client: string; transport: UsageTransport; requests: number }>(
    `SELECT u.day, l.id AS libraryId, u.client, u.transport, u.requests FROM usage_daily u JOIN libraries l ON l.pk = u.library_pk
     WHERE u.day BETWEEN ? AND ?`,
  )
  const usersByClient = db.prepare<[number, string], { day: string; client: string; users: number }>(
    'SELECT day, client, count(*) AS users FROM usage_users WHERE library_pk = ? AND day >= ? GROUP BY day, client ORDER BY day, client',
  )
  const distinctUsers = db.prepare<[number, string], { day: string; users: number }>(
    'SELECT day, count(DISTINCT user_hash) AS users FROM usage_users WHERE library_pk = ? AND day >= ? GROUP BY day ORDER BY day',
  )
  const topics = db.prepare<[number, number], { topic: string; count: number }>(
    'SELECT topic, requests AS count FROM usage_topics WHERE library_pk = ? ORDER BY requests DESC, topic LIMIT ?',
  )
  const countries = db.prepare<[number], { country: string; count: number }>(
    'SELECT country, requests AS count FROM usage_countries WHERE library_pk = ? ORDER BY requests DESC, country',
  )
  const write = db.transaction((batch: UsageBatch, today: string) => {
    const exists = new Map<number, boolean>()
    const known = (libraryPk: number) => {
      if (!exists.has(libraryPk)) exists.set(libraryPk, libraryExists.get(libraryPk)!.n > 0)
      return exists.get(libraryPk)!
    }
    for (const row of batch.rows.values()) if (known(row.libraryPk)) upsert.run(row)
    for (const [key, users] of batch.users) {
      const [day, pk, client] = key.split('|')
      if (!known(Number(pk))) continue
      const daySalt = salt.of(day)
      // 132 bits of the HMAC: far more than needed to keep a day's users apart.
      for (const user of users) insertUser.run(day, Number(pk), client, createHmac('sha256', daySalt).update(user).digest('base64url').slice(0, 22))
    }
    for (const [pk, counts] of batch.topics) if (known(pk)) for (const [topic, n] of counts) upsertTopic.run(pk, topic, n)
    for (const [pk, counts] of batch.countries) if (known(pk)) for (const [country, n] of counts) upsertCountry.run(pk, country, n)
    salt.forgetBefore(today)
  })
  return {
    write: (batch, today) => write(batch, today),
    forgetSaltsBefore: (day) => salt.forgetBefore(day),
    mostAskedSets: (since) => mostAsked.all(since).map((row) => row.setPk),
    forLibrary: (libraryPk) => ofLibrary.all(libraryPk).map((r) => ({ day: r.day, libraryPk: r.library_pk, client: r.client, transport: r.transport, requests: r.requests })),
    between: (from, to) => between.all(from, to),
    users: (libraryPk, from) => ({ byClient: usersByClient.all(libraryPk, from), distinct: distinctUsers.all(libraryPk, from) }),
    topics: (libraryPk, limit) => topics.all(libraryPk, limit),
    countries: (libraryPk) => countries.all(libraryPk),
  }
}
