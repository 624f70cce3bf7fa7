/**
 * Usage counts as stored (usage_daily, and migration 0015's users, topics and countries): what
 * src/usage/recorder.ts writes at each flush and the usage report and library metrics read. A
 * day's MCP users are stored only as an HMAC under that day's salt (src/store/usage-salt.ts).
 */
import { createHmac } from 'node:crypto'
import type { Sql } from './sql.js'
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
  write(batch: UsageBatch, today: string): Promise<void>
  /** Deletes the salts of every day before `day`. */
  forgetSaltsBefore(day: string): Promise<void>
  /** The live sets of the default versions of libraries asked since `since` (a day), most asked first. */
  mostAskedSets(since: string): Promise<number[]>
  forLibrary(libraryPk: number): Promise<UsageRow[]>
  /** Every count from day `from` to day `to`, with its library's ID. */
  between(from: string, to: string): Promise<Array<Omit<UsageRow, 'libraryPk'> & { libraryId: string }>>
  /** A library's users per day and client, and distinct users per day, from day `from`. */
  users(libraryPk: number, from: string): Promise<{ byClient: Array<{ day: string; client: string; users: number }>; distinct: Array<{ day: string; users: number }> }>
  /** A library's most asked topics, at most `limit`, and its countries, most requests first. */
  topics(libraryPk: number, limit: number): Promise<Array<{ topic: string; count: number }>>
  countries(libraryPk: number): Promise<Array<{ country: string; count: number }>>
}

interface DailyRow {
  day: string
  library_pk: number
  client: string
  transport: UsageTransport
  requests: number
}

export function createUsageRepository(sql: Sql): UsageRepository {
  const salt = new DailySalt(sql)
  const write = (batch: UsageBatch, today: string) =>
    sql.transaction(async () => {
      const exists = new Map<number, boolean>()
      const known = async (libraryPk: number) => {
        let found = exists.get(libraryPk)
        if (found === undefined) exists.set(libraryPk, (found = (await sql.get('SELECT pk FROM libraries WHERE pk = ?', [libraryPk])) !== undefined))
        return found
      }
      for (const row of batch.rows.values()) {
        if (!(await known(row.libraryPk))) continue
        await sql.run(
          `INSERT INTO usage_daily (day, library_pk, client, transport, requests) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (day, library_pk, client, transport) DO UPDATE SET requests = usage_daily.requests + excluded.requests`,
          [row.day, row.libraryPk, row.client, row.transport, row.requests],
        )
      }
      for (const [key, users] of batch.users) {
        const [day, pk, client] = key.split('|')
        if (!(await known(Number(pk)))) continue
        const daySalt = await salt.of(day)
        for (const user of users) {
          // 132 bits of the HMAC: far more than needed to keep a day's users apart.
          const hash = createHmac('sha256', daySalt).update(user).digest('base64url').slice(0, 22)
          await sql.run('INSERT INTO usage_users (day, library_pk, client, user_hash) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', [day, Number(pk), client, hash])
        }
      }
      const addFacets = async (table: 'usage_topics' | 'usage_countries', column: 'topic' | 'country', facets: Facets) => {
        for (const [pk, counts] of facets) {
          if (!(await known(pk))) continue
          for (const [facet, n] of counts) {
            await sql.run(
              `INSERT INTO ${table} (library_pk, ${column}, requests) VALUES (?, ?, ?) ON CONFLICT (library_pk, ${column}) DO UPDATE SET requests = ${table}.requests + excluded.requests`,
              [pk, facet, n],
            )
          }
        }
      }
      await addFacets('usage_topics', 'topic', batch.topics)
      await addFacets('usage_countries', 'country', batch.countries)
      await salt.forgetBefore(today)
    })
  return {
    write,
    forgetSaltsBefore: (day) => salt.forgetBefore(day),
    mostAskedSets: async (since) =>
      (
        await sql.all<{ setPk: number }>(
          `SELECT v.current_set AS "setPk" FROM library_versions v
           JOIN (SELECT library_pk, SUM(requests) AS n FROM usage_daily WHERE day >= ? GROUP BY library_pk) u ON u.library_pk = v.library_pk
           WHERE v.tag = '' AND v.current_set IS NOT NULL ORDER BY u.n DESC, v.library_pk`,
          [since],
        )
      ).map((row) => row.setPk),
    forLibrary: async (libraryPk) =>
      (await sql.all<DailyRow>('SELECT * FROM usage_daily WHERE library_pk = ? ORDER BY day, client, transport', [libraryPk])).map((r) => ({
        day: r.day,
        libraryPk: r.library_pk,
        client: r.client,
        transport: r.transport,
        requests: r.requests,
      })),
    between: (from, to) =>
      sql.all<{ day: string; libraryId: string; client: string; transport: UsageTransport; requests: number }>(
        `SELECT u.day, l.id AS "libraryId", u.client, u.transport, u.requests FROM usage_daily u JOIN libraries l ON l.pk = u.library_pk
         WHERE u.day BETWEEN ? AND ?`,
        [from, to],
      ),
    users: async (libraryPk, from) => ({
      byClient: await sql.all<{ day: string; client: string; users: number }>(
        'SELECT day, client, count(*) AS users FROM usage_users WHERE library_pk = ? AND day >= ? GROUP BY day, client ORDER BY day, client',
        [libraryPk, from],
      ),
      distinct: await sql.all<{ day: string; users: number }>(
        'SELECT day, count(DISTINCT user_hash) AS users FROM usage_users WHERE library_pk = ? AND day >= ? GROUP BY day ORDER BY day',
        [libraryPk, from],
      ),
    }),
    topics: (libraryPk, limit) =>
      sql.all<{ topic: string; count: number }>('SELECT topic, requests AS count FROM usage_topics WHERE library_pk = ? ORDER BY requests DESC, topic LIMIT ?', [libraryPk, limit]),
    countries: (libraryPk) =>
      sql.all<{ country: string; count: number }>('SELECT country, requests AS count FROM usage_countries WHERE library_pk = ? ORDER BY requests DESC, country', [libraryPk]),
  }
}
