import type { Knex } from 'knex'

/**
 * Users who sign in through OpenID Connect (src/sso/): the provider's subject (`<issuer> <sub>`,
 * unique: the one key of the identity, which an email change at the provider keeps), their name
 * from its claims, and their groups as the provider last said at a sign-in (user_groups). Such a
 * user has no password: `password_hash` holds `sso`, which no password matches. The same module
 * in both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  const integer = knex.client.config.client === 'pg' ? 'BIGINT' : 'INTEGER'
  await knex.raw('ALTER TABLE users ADD COLUMN sso_subject TEXT')
  await knex.raw('ALTER TABLE users ADD COLUMN name TEXT')
  await knex.raw('CREATE UNIQUE INDEX users_sso_subject ON users (sso_subject)')
  await knex.raw(`CREATE TABLE user_groups (
    user_pk ${integer} NOT NULL REFERENCES users(pk) ON DELETE CASCADE,
    name TEXT NOT NULL,
    PRIMARY KEY (user_pk, name)
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
