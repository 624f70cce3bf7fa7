import type { Knex } from 'knex'

/**
 * Licenses issued by a cloud install. The license key itself is never stored: `key_hash` is
 * its SHA-256 and `key_id` its public start (the license file's `licenseKeyId`) that finds the
 * row. `license_json` is the signed file as issued, so it can be printed again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE licenses (
    pk INTEGER PRIMARY KEY,
    key_id TEXT NOT NULL UNIQUE,
    key_hash TEXT NOT NULL,
    customer TEXT NOT NULL,
    edition TEXT NOT NULL,
    offline INTEGER NOT NULL,
    issued_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    license_json TEXT NOT NULL
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
