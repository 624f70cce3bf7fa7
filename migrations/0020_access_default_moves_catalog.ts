import type { Knex } from 'knex'

/**
 * The workspace default of library access control (`access.restrictNewLibraries`, a row of
 * `settings`) decides who sees a library as much as its grants do (migration 0016), so changing
 * it moves the catalogue counter too: servers then cache the setting with the rest of the access
 * rules instead of reading it on every request.
 */
const KEY = 'access.restrictNewLibraries'

export async function up(knex: Knex): Promise<void> {
  for (const [event, row] of [['INSERT', 'NEW'], ['UPDATE', 'NEW'], ['DELETE', 'OLD']] as const) {
    await knex.raw(`CREATE TRIGGER settings_${event.toLowerCase()}_access_catalog AFTER ${event} ON settings WHEN ${row}.key = '${KEY}'
      BEGIN UPDATE catalog_version SET version = version + 1 WHERE id = 1; END`)
  }
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
