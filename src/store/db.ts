/**
 * Opens the SQLite database: migrations first (knex, with its migration lock so a CLI and a
 * server starting together never migrate twice), then one better-sqlite3 connection that all
 * repositories share. Queries are synchronous and prepared once: the read path of /v2/context
 * must stay in the tens of microseconds, which an async query builder cannot do.
 */
import Database from 'better-sqlite3'
import knexFactory from 'knex'
import { migrationSource } from '../../migrations/index.js'

export type Db = Database.Database

export async function migrateDatabase(file: string): Promise<string[]> {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true })
  try {
    await knex.raw('PRAGMA journal_mode = WAL')
    const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]]
    return applied
  } finally {
    await knex.destroy()
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
  }
  return db
}

export const nowIso = (): string => new Date().toISOString()
