import type { Knex } from 'knex'

/**
 * The serving processes of an install, each with the time it was last seen (a heartbeat), so that
 * a process can tell whether another one is running the install's jobs: on SQLite the data
 * directory's lock says so too, but replicas on PostgreSQL share no directory. A row not seen for
 * a while is a process that died (src/jobs/runner-claim.ts). The same module in both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  const integer = knex.client.config.client === 'pg' ? 'BIGINT' : 'INTEGER'
  await knex.raw(`CREATE TABLE replicas (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid ${integer} NOT NULL,
    app_version TEXT NOT NULL,
    started_at TEXT NOT NULL,
    seen_at TEXT NOT NULL
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
