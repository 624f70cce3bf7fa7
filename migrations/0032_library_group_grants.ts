import type { Knex } from 'knex'

/**
 * Library access by group (on-premise): a restricted library is granted to single sign-on groups
 * as well as to users (library_group_grants), and a user reaches it through the groups the
 * provider named at their last sign-in (user_groups, migration 0031). Both move the catalogue
 * version, as library_grants do (migration 0016): servers cache who reaches what per version. The
 * same module in both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg'
  await knex.raw(`CREATE TABLE library_group_grants (
    library_pk ${pg ? 'BIGINT' : 'INTEGER'} NOT NULL REFERENCES libraries(pk) ON DELETE CASCADE,
    group_name TEXT NOT NULL,
    PRIMARY KEY (library_pk, group_name)
  )`)
  for (const table of ['library_group_grants', 'user_groups']) {
    for (const event of ['INSERT', 'DELETE']) {
      const name = `${table}_${event.toLowerCase()}_catalog`
      await knex.raw(
        pg
          ? `CREATE TRIGGER ${name} AFTER ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION bump_catalog_version()`
          : `CREATE TRIGGER ${name} AFTER ${event} ON ${table} BEGIN UPDATE catalog_version SET version = version + 1 WHERE id = 1; END`,
      )
    }
  }
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
