import type { Knex } from 'knex'

/**
 * Team pks are never reused: without AUTOINCREMENT SQLite gives a new team the pk of the newest
 * deleted one, and with it that team's team-scoped library IDs (`/docs/spec--t9`), which can meet
 * what is still keyed by those IDs (redirects). SQLite cannot add AUTOINCREMENT to a table, so
 * `teams` is rebuilt with its rows. The tables that reference it (team_members, api_keys,
 * libraries, connections, invitations) keep their references by name; foreign keys are off during
 * the rebuild, since dropping the old table would otherwise delete, by cascade, every row that
 * references it. The sequence starts above the highest team pk a redirect still names, for teams
 * deleted before this migration. Harmless to run twice (see 0020): a second run finds the table
 * rebuilt.
 */
export const config = { transaction: false }

const TEAM_SUFFIX = /--t(\d+)(?:$|@)/

export async function up(knex: Knex): Promise<void> {
  await knex.raw('PRAGMA foreign_keys = OFF')
  try {
    await knex.transaction(async (trx) => {
      const [teams] = (await trx.raw("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'teams'")) as Array<{ sql: string }>
      if (/\bpk INTEGER PRIMARY KEY AUTOINCREMENT\b/.test(teams.sql)) return
      await trx.raw(`CREATE TABLE teams_new (
        pk INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        plan TEXT NOT NULL DEFAULT 'free',
        personal_user_pk INTEGER UNIQUE REFERENCES users(pk) ON DELETE CASCADE,
        policies TEXT,
        created_at TEXT NOT NULL
      )`)
      await trx.raw(`INSERT INTO teams_new (pk, name, plan, personal_user_pk, policies, created_at)
        SELECT pk, name, plan, personal_user_pk, policies, created_at FROM teams`)
      await trx.raw('DROP TABLE teams')
      await trx.raw('ALTER TABLE teams_new RENAME TO teams')
      const redirects = (await trx.raw('SELECT from_id, to_id FROM redirects')) as Array<{ from_id: string; to_id: string }>
      const named = redirects.flatMap((r) => [r.from_id, r.to_id]).map((id) => Number(TEAM_SUFFIX.exec(id)?.[1] ?? 0))
      const [{ top }] = (await trx.raw('SELECT coalesce(max(pk), 0) AS top FROM teams')) as Array<{ top: number }>
      const floor = Math.max(top, ...named)
      if (floor > 0) {
        await trx.raw("DELETE FROM sqlite_sequence WHERE name = 'teams'")
        await trx.raw("INSERT INTO sqlite_sequence (name, seq) VALUES ('teams', ?)", [floor])
      }
      const broken = (await trx.raw('PRAGMA foreign_key_check')) as unknown[]
      if (broken.length > 0) throw new Error(`Rebuilding teams would break ${broken.length} foreign key references; nothing was changed.`)
    })
  } finally {
    await knex.raw('PRAGMA foreign_keys = ON')
  }
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
