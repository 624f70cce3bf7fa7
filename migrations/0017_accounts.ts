import type { Knex } from 'knex'

/**
 * Self-service accounts (cloud mode): whether a user's email is verified, the single-use tokens
 * of email verification and password reset, and invitations to a teamspace. Tokens are stored as
 * their SHA-256 only, with an expiry; using one deletes it. Users that existed before (admins and
 * members made by the operator) count as verified.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE users ADD COLUMN email_verified_at TEXT')
  await knex.raw('UPDATE users SET email_verified_at = created_at')
  await knex.raw(`CREATE TABLE account_tokens (
    token_hash TEXT PRIMARY KEY,
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  )`)
  await knex.raw('CREATE INDEX account_tokens_user ON account_tokens (user_pk, purpose)')
  await knex.raw(`CREATE TABLE invitations (
    pk INTEGER PRIMARY KEY,
    team_pk INTEGER NOT NULL REFERENCES teams(pk) ON DELETE CASCADE,
    email TEXT NOT NULL COLLATE NOCASE,
    role TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    invited_by_user_pk INTEGER REFERENCES users(pk) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    UNIQUE (team_pk, email)
  )`)
  await knex.raw('CREATE INDEX invitations_email ON invitations (email)')
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
