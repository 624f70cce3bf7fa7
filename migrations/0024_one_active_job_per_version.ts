import type { Knex } from 'knex'

/**
 * One queued or running job per library version, held by a unique partial index rather than by
 * each caller's check before it queues: with several writers (replicas on PostgreSQL) a check and
 * an insert can interleave, a constraint cannot. Jobs of no version (re-embedding, vector
 * rebuilds) are not held by it. The same SQL in both dialects (migrations/postgres/ lists this
 * file too).
 *
 * Should a database already hold two active jobs of one version (it cannot through Lectern), the
 * running one stays (else the oldest) and the others end as cancelled, saying why, their sealed
 * tokens cleared as a finished job's are, before the index is made.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE jobs SET state = 'failed', error_code = 'cancelled', status_message = 'failed', secret = NULL,
      error_message = 'Cancelled on upgrade: another job of the same library version was queued or running.',
      finished_at = coalesce(finished_at, started_at, created_at)
    WHERE state IN ('queued', 'running') AND version_pk IS NOT NULL
      AND pk <> (SELECT kept.pk FROM jobs kept WHERE kept.version_pk = jobs.version_pk AND kept.state IN ('queued', 'running')
        ORDER BY (kept.state = 'running') DESC, kept.pk LIMIT 1)`)
  await knex.raw(`CREATE UNIQUE INDEX jobs_one_active_per_version ON jobs (version_pk) WHERE state IN ('queued', 'running')`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
