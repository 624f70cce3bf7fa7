import type { Knex } from 'knex'

/**
 * Namespace access rules (on-premise): `/acme/*` is open to everyone or restricted to the users
 * and single sign-on groups granted it, and governs every library under it that has no rule of
 * its own (src/library/namespace.ts). Rules and their grants move the catalogue version, as a
 * library's do (migrations 0016 and 0032): servers cache who reaches what per version. The same
 * module in both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg'
  await knex.raw(`CREATE TABLE namespace_rules (
    namespace TEXT PRIMARY KEY,
    access TEXT NOT NULL CHECK (access IN ('everyone', 'restricted'))
  )`)
  await knex.raw(`CREATE TABLE namespace_grants (
    namespace TEXT NOT NULL REFERENCES namespace_rules(namespace) ON DELETE CASCADE,
    user_pk ${pg ? 'BIGINT' : 'INTEGER'} NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    PRIMARY KEY (namespace, user_pk)
  )`)
  await knex.raw(`CREATE TABLE namespace_group_grants (
    namespace TEXT NOT NULL REFERENCES namespace_rules(namespace) ON DELETE CASCADE,
    group_name TEXT NOT NULL,
    PRIMARY KEY (namespace, group_name)
  )`)
  const moves = { namespace_rules: ['INSERT', 'UPDATE', 'DELETE'], namespace_grants: ['INSERT', 'DELETE'], namespace_group_grants: ['INSERT', 'DELETE'] }
  for (const [table, events] of Object.entries(moves)) {
    for (const event of events) {
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
