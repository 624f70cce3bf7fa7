import type { Knex } from 'knex'

/**
 * Admin users (dashboard and backup endpoints) and their sessions. Passwords are scrypt hashes
 * with their salt and parameters; a session is stored as the SHA-256 of its cookie value.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE users (
    pk INTEGER PRIMARY KEY,
    email TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`)
  await knex.raw(`CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_pk INTEGER NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
