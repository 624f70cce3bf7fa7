import type { Knex } from 'knex'

/**
 * Servers cache more for requests than the catalogue (migration 0012): the workspace default of
 * library access control (`access.restrictNewLibraries`, a row of `settings`), API keys, whether a
 * key's user is an admin, and the plans and policies of teamspaces. Changing any of them moves the
 * catalogue counter too, so a request checks them all against the one version it reads instead
 * of reading each: a key revoked, deleted or given another owner, a user's role changed, a
 * teamspace's plan or policy changed or the teamspace deleted. Writes a request does not depend
 * on (a key's last use, a teamspace's name) leave it.
 */
const BUMP = 'BEGIN UPDATE catalog_version SET version = version + 1 WHERE id = 1; END'
const ACCESS_DEFAULT = 'access.restrictNewLibraries'

export async function up(knex: Knex): Promise<void> {
  for (const [event, row] of [['INSERT', 'NEW'], ['UPDATE', 'NEW'], ['DELETE', 'OLD']] as const) {
    await knex.raw(`CREATE TRIGGER settings_${event.toLowerCase()}_catalog AFTER ${event} ON settings WHEN ${row}.key = '${ACCESS_DEFAULT}' ${BUMP}`)
  }
  await knex.raw(`CREATE TRIGGER api_keys_update_catalog AFTER UPDATE OF revoked_at, user_pk, team_pk, name ON api_keys ${BUMP}`)
  await knex.raw(`CREATE TRIGGER api_keys_delete_catalog AFTER DELETE ON api_keys ${BUMP}`)
  await knex.raw(`CREATE TRIGGER users_update_catalog AFTER UPDATE OF role ON users ${BUMP}`)
  await knex.raw(`CREATE TRIGGER teams_update_catalog AFTER UPDATE OF plan, policies ON teams ${BUMP}`)
  await knex.raw(`CREATE TRIGGER teams_delete_catalog AFTER DELETE ON teams ${BUMP}`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
