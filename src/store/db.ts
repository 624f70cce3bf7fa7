/**
 * Opens the SQLite database: migrations first (knex, with its migration lock so a CLI and a
 * server starting together never run a migration at the same time; a migration without a
 * transaction may still run twice, one process after the other, and is written to be harmless
 * then: see migrations/0020), then one better-sqlite3 connection that all
 * repositories share. Queries are synchronous and prepared once: the read path of /v2/context
 * must stay in the tens of microseconds, which an async query builder cannot do.
 */
import Database from 'better-sqlite3'
import { MIGRATIONS, migrationSource } from '../../migrations/index.js'
import { LecternError } from '../errors.js'
import { APP_VERSION } from '../install/version.js'

export type Db = Database.Database

/**
 * Two processes opening a new data directory together race in knex's creation of its own
 * tables (knex/knex#3538), and the loser of knex's migration lock gets an error instead of
 * waiting; both are transient, so the loser retries until the winner has finished.
 */
const TRANSIENT_MIGRATION_ERROR = /already exists|already locked|SQLITE_BUSY|database is locked/i

export async function migrateDatabase(file: string): Promise<string[]> {
  // Knex takes its migration lock (a write) even with nothing to do; a current database is left
  // untouched, so opening it works on a full disk too.
  if (isCurrent(file)) return []
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(file)
    } catch (err) {
      if (attempt >= 40 || !TRANSIENT_MIGRATION_ERROR.test(String((err as Error).message))) throw err
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200))
    }
  }
}

async function migrateOnce(file: string): Promise<string[]> {
  // Loaded only when there is something to migrate: it is a sixth of a command's start-up.
  const { default: knexFactory } = await import('knex')
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true })
  try {
    await knex.raw('PRAGMA busy_timeout = 5000')
    await knex.raw('PRAGMA journal_mode = WAL')
    const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]]
    return applied
  } catch (err) {
    const unknown = migrationsUnknownToKnex(err)
    if (unknown === undefined) throw err
    throw new LecternError(
      'database_too_new',
      `${file} was migrated by a newer Lectern (migrations ${unknown}, which Lectern ${APP_VERSION} does not have): run that version again, or restore the backup taken before the upgrade with this one (lectern restore <archive>).`,
      {},
      { cause: err },
    )
  } finally {
    await knex.destroy()
  }
}

/**
 * After a rollback to an older build knex finds migrations applied that this build lacks: their
 * names, from its error; undefined for any other error.
 */
export function migrationsUnknownToKnex(err: unknown): string | undefined {
  return /The migration directory is corrupt, the following files are missing: (.*)$/.exec((err as Error).message)?.[1]
}

/** Whether the database exists and has exactly the migrations of this build applied. */
function isCurrent(file: string): boolean {
  let db: Db | undefined
  try {
    db = new Database(file, { readonly: true, fileMustExist: true })
    db.pragma('busy_timeout = 5000')
    // Exactly this build's list: one it does not know goes through knex, which refuses it.
    const applied = new Set(appliedMigrations(db))
    return applied.size === MIGRATIONS.length && MIGRATIONS.every(([name]) => applied.has(name))
  } catch {
    return false
  } finally {
    db?.close()
  }
}

/** The names of the migrations applied to a database, oldest first. */
export function appliedMigrations(db: Db): string[] {
  return (db.prepare('SELECT name FROM knex_migrations ORDER BY id').all() as { name: string }[]).map((r) => r.name)
}

export function openConnection(file: string, options: { readonly?: boolean } = {}): Db {
  const db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false })
  db.pragma('busy_timeout = 5000')
  if (!options.readonly) {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    beginImmediateByDefault(db)
  }
  return db
}

/**
 * Makes every transaction of the connection begin IMMEDIATE unless it asks for `.deferred()`.
 * A deferred transaction that reads and then writes fails at once with SQLITE_BUSY
 * ("database is locked", BUSY_SNAPSHOT) when another process (a CLI command, a serving worker, the
 * job worker) committed in between: SQLite cannot upgrade a stale snapshot, and the busy timeout
 * does not apply. Taking the write lock at BEGIN makes the transaction wait its turn instead.
 * Read-only transactions ask for `.deferred()`, so they never hold writers up.
 */
function beginImmediateByDefault(db: Db): void {
  const transaction = db.transaction.bind(db)
  db.transaction = ((fn: (...args: never[]) => unknown) => {
    const made = transaction(fn)
    const run = (...args: never[]) => made.immediate(...args)
    return Object.assign(run, { default: made.immediate, deferred: made.deferred, immediate: made.immediate, exclusive: made.exclusive })
  }) as Db['transaction']
}

export const nowIso = (): string => new Date().toISOString()
