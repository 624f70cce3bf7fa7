import type { Knex } from 'knex'

/**
 * Connections of a teamspace (cloud mode): a tenant's own Confluence sites, Notion workspaces and
 * private git hosts, beside the install's (`team_pk` NULL). A name is unique per owner, so two
 * teamspaces may both call theirs "wiki"; deleting a teamspace deletes its connections. SQLite
 * cannot drop a column's UNIQUE, so the table is rebuilt with its rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE connections_new (
    pk INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('confluence', 'notion', 'git')),
    name TEXT NOT NULL,
    base_url TEXT NOT NULL,
    email TEXT,
    token_sealed TEXT NOT NULL,
    created_at TEXT NOT NULL,
    team_pk INTEGER REFERENCES teams(pk) ON DELETE CASCADE
  )`)
  await knex.raw(`INSERT INTO connections_new (pk, kind, name, base_url, email, token_sealed, created_at)
    SELECT pk, kind, name, base_url, email, token_sealed, created_at FROM connections`)
  await knex.raw('DROP TABLE connections')
  await knex.raw('ALTER TABLE connections_new RENAME TO connections')
  await knex.raw('CREATE UNIQUE INDEX connections_install_name ON connections (name) WHERE team_pk IS NULL')
  await knex.raw('CREATE UNIQUE INDEX connections_team_name ON connections (team_pk, name) WHERE team_pk IS NOT NULL')
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
