import type { Knex } from 'knex'

/**
 * A snippet's vector, as the embedder of its set computed it (float32, little-endian), for the sets
 * of a real embedder (Ollama, OpenAI-compatible); null for a hash-embedded set, whose vectors are
 * derived from the rows. A vector index file (vectors/) is then derived data in every data
 * directory: rebuilt from these without calling the embedder again, by each replica of a
 * PostgreSQL install for itself. Null too in sets built before this migration, until their index
 * is next rebuilt. The same module in both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE snippets ADD COLUMN vector ${knex.client.config.client === 'pg' ? 'BYTEA' : 'BLOB'}`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
