import type { Knex } from 'knex'

/**
 * What the library metrics endpoint reads besides usage_daily (src/library/metrics.ts):
 * - usage_users: one row per day, library, MCP client and user who asked through MCP, the user
 *   being an HMAC of the API key's ID or the client address under that day's salt. The primary
 *   key makes a user count once however many processes saw them (`serve --workers`).
 * - usage_salt: the salt of the current UTC day only, shared by the serving processes; the row
 *   is replaced when the day turns, after which that day's hashes can no longer be tied to an
 *   address (src/store/usage-salt.ts).
 * - usage_topics, usage_countries: lifetime counts of the question terms asked and of the
 *   callers' countries (ISO-2, or `unknown`), per library. Questions and addresses are not kept.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE usage_users (
    day TEXT NOT NULL,
    library_pk INTEGER NOT NULL REFERENCES libraries(pk) ON DELETE CASCADE,
    client TEXT NOT NULL,
    user_hash TEXT NOT NULL,
    PRIMARY KEY (library_pk, day, client, user_hash)
  ) WITHOUT ROWID`)
  await knex.raw(`CREATE TABLE usage_salt (
    day TEXT PRIMARY KEY,
    salt BLOB NOT NULL
  ) WITHOUT ROWID`)
  await knex.raw(`CREATE TABLE usage_topics (
    library_pk INTEGER NOT NULL REFERENCES libraries(pk) ON DELETE CASCADE,
    topic TEXT NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (library_pk, topic)
  ) WITHOUT ROWID`)
  await knex.raw(`CREATE TABLE usage_countries (
    library_pk INTEGER NOT NULL REFERENCES libraries(pk) ON DELETE CASCADE,
    country TEXT NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (library_pk, country)
  ) WITHOUT ROWID`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
