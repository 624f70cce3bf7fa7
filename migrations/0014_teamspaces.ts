import type { Knex } from 'knex'

/**
 * Teamspaces (cloud mode): a team has a plan and members with a role each, exactly one of them
 * its owner; every user also has a personal team (`personal_user_pk`) that holds their keys and
 * private libraries when they belong to no teamspace. A key belongs to a user within a team, a
 * private library to the team that added it. Teams are never deleted by a cascade from
 * libraries: removing a team removes its libraries through the library-removal path first, so
 * their snippet sets and vector files go with them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE teams (
    pk INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    plan TEXT NOT NULL DEFAULT 'free',
    personal_user_pk INTEGER UNIQUE REFERENCES users(pk) ON DELETE CASCADE,
    policies TEXT,
    created_at TEXT NOT NULL
  )`)
  await knex.raw(`CREATE TABLE team_members (
    team_pk INTEGER NOT NULL REFERENCES teams(pk) ON DELETE CASCADE,
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (team_pk, user_pk)
  ) WITHOUT ROWID`)
  await knex.raw('CREATE INDEX team_members_user ON team_members (user_pk)')
  await knex.raw(`CREATE UNIQUE INDEX team_members_one_owner ON team_members (team_pk) WHERE role = 'owner'`)
  await knex.raw('ALTER TABLE api_keys ADD COLUMN user_pk INTEGER REFERENCES users(pk) ON DELETE CASCADE')
  await knex.raw('ALTER TABLE api_keys ADD COLUMN team_pk INTEGER REFERENCES teams(pk) ON DELETE CASCADE')
  await knex.raw('ALTER TABLE libraries ADD COLUMN team_pk INTEGER REFERENCES teams(pk)')
  await knex.raw('CREATE INDEX libraries_team ON libraries (team_pk) WHERE team_pk IS NOT NULL')
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
