import type { Knex } from 'knex'

/**
 * What a job's row says beyond its outcome: how many documents it skipped (its warnings; the
 * job's log says which and why), and which process runs it (pid and host name), so that a job
 * whose runner is gone (a killed `lectern add --wait`) is shown as interrupted, not as running.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE jobs ADD COLUMN warnings INTEGER NOT NULL DEFAULT 0')
  await knex.raw('ALTER TABLE jobs ADD COLUMN runner_pid INTEGER')
  await knex.raw('ALTER TABLE jobs ADD COLUMN runner_host TEXT')
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
