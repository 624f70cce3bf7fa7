import type { Knex } from 'knex'

/**
 * The job queue. Any process may insert; the server's worker claims the oldest queued job.
 * `secret` holds a sealed (AES-GCM) token for the job, never the plain text.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE jobs (
    pk INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    library_pk INTEGER REFERENCES libraries(pk) ON DELETE CASCADE,
    version_pk INTEGER REFERENCES library_versions(pk) ON DELETE CASCADE,
    payload TEXT NOT NULL DEFAULT '{}',
    secret TEXT,
    state TEXT NOT NULL,
    status_message TEXT,
    error_code TEXT,
    error_message TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
  )`)
  await knex.raw('CREATE INDEX jobs_state ON jobs (state, pk)')
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
