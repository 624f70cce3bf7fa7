import type { Knex } from 'knex'

/**
 * Lectern's extraction report of a library version (src/extraction/report.ts): what its last
 * ingest made of its documents, as JSON, replaced by every ingest that builds a new set. It goes
 * with its version.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE extraction_reports (
    version_pk INTEGER PRIMARY KEY REFERENCES library_versions(pk) ON DELETE CASCADE,
    job_pk INTEGER,
    created_at TEXT NOT NULL,
    report TEXT NOT NULL
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
