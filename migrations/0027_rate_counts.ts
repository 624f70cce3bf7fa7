import type { Knex } from 'knex'

/**
 * Requests counted per caller and rate-limit window, summed over the replicas of a PostgreSQL
 * install (src/net/shared-rate-limit.ts): each replica adds what it granted, about once a second,
 * and reads back the total. The caller is a hash (of an API key's id, a client address, an account
 * at an address), never the address or account itself. The same module in both dialects; SQLite
 * installs count in memory and leave the table empty.
 */
export async function up(knex: Knex): Promise<void> {
  const integer = knex.client.config.client === 'pg' ? 'BIGINT' : 'INTEGER'
  await knex.raw(`CREATE TABLE rate_counts (
    caller TEXT NOT NULL,
    window_start ${integer} NOT NULL,
    count ${integer} NOT NULL,
    PRIMARY KEY (caller, window_start)
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
