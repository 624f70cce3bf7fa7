import type { Knex } from 'knex'

/**
 * What a job tells about itself, readable by every process: its log lines (the worker keeps the
 * newest of each job, removed with the job), and a cancel request on the job's row (when, and
 * who asked), which the process that runs the job notices even when another process (a CLI,
 * another serving worker) recorded it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE job_logs (
    pk INTEGER PRIMARY KEY,
    job_pk INTEGER NOT NULL REFERENCES jobs(pk) ON DELETE CASCADE,
    time TEXT NOT NULL,
    level TEXT NOT NULL,
    message TEXT NOT NULL,
    fields TEXT
  )`)
  await knex.raw('CREATE INDEX job_logs_job ON job_logs (job_pk, pk)')
  await knex.raw('ALTER TABLE jobs ADD COLUMN cancel_requested_at TEXT')
  await knex.raw('ALTER TABLE jobs ADD COLUMN cancel_requested_by TEXT')
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
