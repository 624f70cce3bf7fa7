import type { Knex } from 'knex'

/**
 * A counter of changes to the catalogue: the libraries, their versions, their snippet sets and
 * the redirects of renamed libraries. Servers cache what they resolve from those tables (a
 * library ID to its live set, the library list) and check this counter on each request; unlike
 * SQLite's data_version, it does not move when an ingest writes snippets or a job its progress,
 * so an ingest no longer makes every request resolve again. Triggers keep it, for every writer.
 */
const TABLES = ['libraries', 'library_versions', 'snippet_sets', 'redirects'] as const
const EVENTS = ['INSERT', 'UPDATE', 'DELETE'] as const

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE catalog_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`)
  await knex.raw(`INSERT INTO catalog_version (id, version) VALUES (1, 0)`)
  for (const table of TABLES) {
    for (const event of EVENTS) {
      await knex.raw(`CREATE TRIGGER ${table}_${event.toLowerCase()}_catalog AFTER ${event} ON ${table}
        BEGIN UPDATE catalog_version SET version = version + 1 WHERE id = 1; END`)
    }
  }
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
