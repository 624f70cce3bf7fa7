import type { Knex } from 'knex'

/**
 * Stored connections to Confluence sites, Notion workspaces and private git hosts. A reader
 * names a connection instead of carrying a token; `token_sealed` is the AES-GCM sealed token
 * (see src/secrets/cipher.ts), never the plain text.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE connections (
    pk INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('confluence', 'notion', 'git')),
    name TEXT NOT NULL UNIQUE,
    base_url TEXT NOT NULL,
    email TEXT,
    token_sealed TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
