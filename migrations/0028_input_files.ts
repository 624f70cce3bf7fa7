import type { Knex } from 'knex'

/**
 * The files jobs read (an uploaded OpenAPI spec, a library staged by an import) kept in the
 * database of a PostgreSQL install, so that any replica can run their jobs (src/sources/input-files.ts).
 * A file is its chunks of up to a megabyte, in order. SQLite installs keep these files in the data
 * directory, where backups copy them, and leave the table empty.
 *
 * Since no job reads a file of one data directory any more, a job has no home: the column 0026
 * added for it goes. The same module in both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  const binary = knex.client.config.client === 'pg' ? 'BYTEA' : 'BLOB'
  await knex.raw(`CREATE TABLE input_files (
    name TEXT NOT NULL,
    chunk INTEGER NOT NULL,
    data ${binary} NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (name, chunk)
  )`)
  await knex.raw('ALTER TABLE jobs DROP COLUMN home')
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
