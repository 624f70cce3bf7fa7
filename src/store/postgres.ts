/**
 * The store's PostgreSQL database (DATABASE_URL): migrated through knex's pg client, whose
 * migration lock (a row in knex_migrations_lock) makes replicas that start together take turns;
 * the loser waits and finds nothing left to do. Errors never show the URL's password.
 */
import pg from 'pg'
import { POSTGRES_MIGRATIONS, postgresMigrationSource } from '../../migrations/postgres/index.js'
import { withoutPassword } from '../config.js'
import { LecternError } from '../errors.js'
import { APP_VERSION } from '../install/version.js'
import { migrationsUnknownToKnex } from './db.js'

/** Lost races of replicas starting together: knex's own tables created twice, or its lock taken. */
const TRANSIENT_MIGRATION_ERROR = /already exists|already locked|duplicate key/i
/** How long a replica waits for another one's migrations before giving up. */
const MIGRATION_WAIT_MS = 120_000

/**
 * The error a failed connection becomes: `database_unreachable`, saying where and why (pg's own
 * reason: refused, unknown host, authentication failed, no such database).
 */
export function unreachable(url: string, err: unknown): LecternError {
  const reason = (err as { code?: string; message?: string }).message || (err as { code?: string }).code || String(err)
  return new LecternError(
    'database_unreachable',
    `Cannot reach PostgreSQL at ${withoutPassword(url)}: ${reason}. Check that it runs and that DATABASE_URL names the right host, port, database, user and password.`,
    {},
    { cause: err },
  )
}

/** The migrations applied to the database, oldest first; none when knex has not run there yet. */
export async function appliedPostgresMigrations(query: (text: string) => Promise<{ rows: Array<{ name: string }> }>): Promise<string[]> {
  try {
    return (await query('SELECT name FROM knex_migrations ORDER BY id')).rows.map((r) => r.name)
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return []
    throw err
  }
}

/** Brings the database to this build's schema; returns the migrations it applied. */
export async function migratePostgres(url: string): Promise<string[]> {
  if (await isCurrent(url)) return []
  const started = Date.now()
  for (;;) {
    try {
      return await migrateOnce(url)
    } catch (err) {
      if (err instanceof LecternError || Date.now() - started > MIGRATION_WAIT_MS || !TRANSIENT_MIGRATION_ERROR.test(String((err as Error).message))) throw err
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 400))
    }
  }
}

/** Runs `fn` on a connection of its own, ended after; a connection that cannot be made is `database_unreachable`. */
async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  client.on('error', () => {})
  try {
    await client.connect()
  } catch (err) {
    await client.end().catch(() => {})
    throw unreachable(url, err)
  }
  try {
    return await fn(client)
  } finally {
    await client.end().catch(() => {})
  }
}

async function isCurrent(url: string): Promise<boolean> {
  return withClient(url, async (client) => {
    const applied = new Set(await appliedPostgresMigrations((text) => client.query<{ name: string }>(text)))
    return applied.size === POSTGRES_MIGRATIONS.length && POSTGRES_MIGRATIONS.every(([name]) => applied.has(name))
  })
}

async function migrateOnce(url: string): Promise<string[]> {
  const { default: knexFactory } = await import('knex')
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } })
  try {
    const [, applied] = (await knex.migrate.latest({ migrationSource: postgresMigrationSource })) as [number, string[]]
    return applied
  } catch (err) {
    const unknown = migrationsUnknownToKnex(err)
    if (unknown === undefined) throw err
    throw new LecternError(
      'database_too_new',
      `The database at ${withoutPassword(url)} was migrated by a newer Lectern (migrations ${unknown}, which Lectern ${APP_VERSION} does not have): run that version on every replica.`,
      {},
      { cause: err },
    )
  } finally {
    await knex.destroy()
  }
}

/**
 * One stored setting of the database at `url`, read without migrating or keeping a connection
 * (what a command needs before it opens the store: the recorded mode); undefined before the first
 * migration or when unset.
 */
export async function settingOfDatabase(url: string, key: string): Promise<unknown> {
  return withClient(url, async (client) => {
    try {
      const row = (await client.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key])).rows[0]
      return row === undefined ? undefined : (JSON.parse(row.value) as unknown)
    } catch (err) {
      if ((err as { code?: string }).code === '42P01') return undefined
      throw err
    }
  })
}
