import type { Knex } from 'knex'

/**
 * The libraries GitOps added (src/gitops/): each with the fingerprint of the manifest entry it was
 * last indexed from, so a sync re-indexes only what changed and prunes only what it added.
 * Removing the library removes its row. The same module in both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg'
  await knex.raw(`CREATE TABLE gitops_libraries (
    library_pk ${pg ? 'BIGINT' : 'INTEGER'} PRIMARY KEY REFERENCES libraries(pk) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    synced_at TEXT NOT NULL
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
