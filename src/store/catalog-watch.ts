/**
 * The catalogue version of a PostgreSQL store, kept in memory so that a request never waits on the
 * database to learn it (issue 31). Every write to the catalogue bumps the version in a trigger that
 * also sends it on the `lectern_catalog` channel (migrations/postgres/0023_baseline.ts); one
 * listening connection per process hears it as soon as the writer commits, on any replica.
 *
 * What the version guarantees: it only moves forward, and it is never ahead of what this process
 * reads next (it is taken from a commit that happened). It may lag behind another replica's commit
 * for as long as the notification takes, and, while the listening connection is down, for up to one
 * poll: every `POLL_MS` the watch then reads the version and tries to listen again. This process's
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
    const client = new pg.Client({ connectionString: url, keepAlive: true })
    client.on('error', () => drop(client))
    client.on('end', () => drop(client))
    client.on('notification', (message) => raise(Number(message.payload)))
    try {
      await client.connect()
      await client.query(`LISTEN ${CATALOG_CHANNEL}`)
    } catch {
      await client.end().catch(() => {})
      return
    }
    if (closed) {
      await client.end().catch(() => {})
      return
    }
    listener = client
    // What was committed while nobody listened.
    await refresh()
  }

  const tick = () => {
    if (closed || listener || connecting) return
    connecting = (async () => {
      await refresh()
      await listen()
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
      await connecting
      const client = listener
      listener = undefined
      await client?.end().catch(() => {})
    },
  }
}
