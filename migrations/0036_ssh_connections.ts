import type { Knex } from 'knex'

/**
 * SSH connections (src/sources/git-ssh.ts): a connection of kind `ssh` holds a deploy key in
 * `token_sealed`, the host keys it trusts in `known_hosts_sealed` (sealed alike), and the deploy
 * key's public half, which is no secret, to show where it must be installed. The same module in
 * both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE connections ADD COLUMN known_hosts_sealed TEXT')
  await knex.raw('ALTER TABLE connections ADD COLUMN public_key TEXT')
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
