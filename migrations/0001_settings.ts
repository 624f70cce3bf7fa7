import type { Knex } from 'knex'

/** Key/value settings (embedding provider, rate limits, ...); values are JSON. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
