/**
 * The catalogue version of a PostgreSQL store, kept in memory so that a request never waits on the
 * database to learn it (issue 31). Every write to the catalogue bumps the version in a trigger that
 * also sends it on the `lectern_catalog` channel (migrations/postgres/0023_baseline.ts); one
 * listening connection per process hears it as soon as the writer commits, on any replica.
 *
 * What the version guarantees: it only moves forward, and it is never ahead of what this process
 * reads next (it is taken from a commit that happened). It lags behind another replica's commit for
 * as long as the notification takes, and never longer than one poll: every `POLL_MS` the watch
 * reads the version too, and listens again if the connection is down. This process's
 * own writes move it before their transaction returns (`refresh`), so a request that changed the
 * catalogue is followed by requests that see the change.
 */
import pg from 'pg'
import type { Sql } from './sql.js'

export const CATALOG_CHANNEL = 'lectern_catalog'
export const POLL_MS = 1000

export interface CatalogWatch {
  /** The newest committed catalogue version this process has seen. */
  version(): number
  /** Reads the version now; a failure leaves it as it was (the next poll or notification moves it). */
  refresh(): Promise<void>
  /** Whether the listening connection is up: while it is not, the version moves by polling. */
  listening(): boolean
  close(): Promise<void>
}

export async function watchCatalog(url: string, sql: Sql): Promise<CatalogWatch> {
  const read = async () => Number((await sql.get<{ version: number }>('SELECT version FROM catalog_version WHERE id = 1'))!.version)
  let version = await read()
  let listener: pg.Client | undefined
  /** A listening connection being opened, ended at once by close(). */
  let pending: pg.Client | undefined
  let connecting: Promise<void> | undefined
  let closed = false

  const raise = (seen: number) => {
    if (Number.isFinite(seen) && seen > version) version = seen
  }
  const refresh = async () => {
    try {
      raise(await read())
    } catch {
      // Unreachable for now: the poll reads it again.
    }
  }

  const drop = (client: pg.Client) => {
    if (listener !== client) return
    listener = undefined
    void client.end().catch(() => {})
  }

  const listen = async () => {
    // Keepalive probes after 10 s of silence: a listener cut off without a FIN is noticed.
    const client = new pg.Client({ connectionString: url, keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: 5000 })
    pending = client
    client.on('error', () => drop(client))
    client.on('end', () => drop(client))
    client.on('notification', (message) => raise(Number(message.payload)))
    try {
      await client.connect()
      await client.query(`LISTEN ${CATALOG_CHANNEL}`)
    } catch {
      await client.end().catch(() => {})
      return
    } finally {
      pending = undefined
    }
    if (closed) {
      await client.end().catch(() => {})
      return
    }
    listener = client
    // What was committed while nobody listened.
    await refresh()
  }

  // Every tick reads the version, listening or not: a notification can be lost without the
  // connection noticing (a pooler that does not pass LISTEN on, a half-open connection), and one
  // small read a second bounds how long that can last.
  const tick = () => {
    if (closed || connecting) return
    connecting = (async () => {
      await refresh()
      if (!listener) await listen()
    })().finally(() => {
      connecting = undefined
    })
  }

  await listen()
  const timer = setInterval(tick, POLL_MS)
  timer.unref()

  return {
    version: () => version,
    refresh,
    listening: () => listener !== undefined,
    async close() {
      closed = true
      clearInterval(timer)
      await pending?.end().catch(() => {})
      await connecting
      const client = listener
      listener = undefined
      await client?.end().catch(() => {})
    },
  }
}
