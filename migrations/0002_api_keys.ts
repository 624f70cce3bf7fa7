import type { Knex } from 'knex'

/**
 * Personal API keys. Only a SHA-256 of the key is stored; `lookup` is the public part after the
 * prefix (its first 8 characters) that finds the row, the hash is then compared in constant time.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE api_keys (
    pk INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    lookup TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
