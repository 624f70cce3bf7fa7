import type { Knex } from 'knex'

/**
 * Job pks are never reused: without AUTOINCREMENT SQLite gives a new job the pk of the newest
 * deleted one (a library's jobs go with it), so a client still holding the old job's ID
 * (`GET /api/jobs/:id`, `lectern jobs cancel <id>`) would read, or cancel, an unrelated job.
 * SQLite cannot add AUTOINCREMENT to a table, so `jobs` is rebuilt with its rows, from its own
 * stored definition (columns were added by later migrations), and its indexes are made again.
 * `job_logs` keeps its reference by name; foreign keys are off during the rebuild, since dropping
 * the old table would otherwise delete every job's log lines by cascade.
 *
 * Like every migration that runs outside a transaction, it must be harmless to run twice: knex
 * re-reads the applied migrations after taking its lock only inside a wrapping transaction, so
 * two processes migrating together can both run it. The second finds the table rebuilt.
 */
export const config = { transaction: false }

export async function up(knex: Knex): Promise<void> {
  await knex.raw('PRAGMA foreign_keys = OFF')
  try {
    await knex.transaction(async (trx) => {
      const objects = (await trx.raw("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'jobs' AND sql IS NOT NULL")) as Array<{ type: string; name: string; sql: string }>
      const table = objects.find((o) => o.type === 'table')
      if (table && /\bpk INTEGER PRIMARY KEY AUTOINCREMENT,/.test(table.sql)) return
      if (!table || !/\bpk INTEGER PRIMARY KEY,/.test(table.sql)) throw new Error('The jobs table is not the one this migration knows; nothing was changed.')
      await trx.raw(table.sql.replace(/^CREATE TABLE "?jobs"?/, 'CREATE TABLE jobs_new').replace(/\bpk INTEGER PRIMARY KEY,/, 'pk INTEGER PRIMARY KEY AUTOINCREMENT,'))
      await trx.raw('INSERT INTO jobs_new SELECT * FROM jobs')
      await trx.raw('DROP TABLE jobs')
      await trx.raw('ALTER TABLE jobs_new RENAME TO jobs')
      for (const other of objects.filter((o) => o.type !== 'table')) await trx.raw(other.sql)
      const broken = (await trx.raw('PRAGMA foreign_key_check')) as unknown[]
      if (broken.length > 0) throw new Error(`Rebuilding jobs would break ${broken.length} foreign key references; nothing was changed.`)
    })
  } finally {
    await knex.raw('PRAGMA foreign_keys = ON')
  }
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
