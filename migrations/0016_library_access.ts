import type { Knex } from 'knex'

/**
 * Library access control (on-premise): a library is open to everyone, restricted to the users
 * granted it, or follows the workspace default (`access.restrictNewLibraries`) while nobody has
 * configured it. Grants change who sees a library as much as the library's row does, so they
 * move the catalogue counter too (migration 0012), and what servers cache from it goes stale.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE libraries ADD COLUMN access TEXT NOT NULL DEFAULT 'default' CHECK (access IN ('default', 'everyone', 'restricted'))`)
  await knex.raw(`CREATE TABLE library_grants (
    library_pk INTEGER NOT NULL REFERENCES libraries(pk) ON DELETE CASCADE,
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    PRIMARY KEY (library_pk, user_pk)
  ) WITHOUT ROWID`)
  for (const event of ['INSERT', 'DELETE']) {
    await knex.raw(`CREATE TRIGGER library_grants_${event.toLowerCase()}_catalog AFTER ${event} ON library_grants
      BEGIN UPDATE catalog_version SET version = version + 1 WHERE id = 1; END`)
  }
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
