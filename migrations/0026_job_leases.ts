import type { Knex } from 'knex'

/**
 * A running job's owner and lease, so that several runners (replicas on PostgreSQL) can share one
 * queue: the runner that claims a job records its id as `owner` and holds the job until
 * `lease_until`, which it renews while the job runs; a job whose lease has lapsed was left by a
 * runner that died or lost the database, and any runner queues it again (src/jobs/lease.ts). And a
 * job's `home`: the host and data directory that hold its input file (an uploaded spec, a staged
 * import), where alone it can run; null for a job any runner can run. The same module in both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE jobs ADD COLUMN owner TEXT')
  await knex.raw('ALTER TABLE jobs ADD COLUMN lease_until TEXT')
  await knex.raw('ALTER TABLE jobs ADD COLUMN home TEXT')
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
