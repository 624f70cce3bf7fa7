import type { Knex } from 'knex'

/**
 * Snippet sets and snippets. A set is one complete ingest of one library version; it has its
 * own FTS5 table `fts_<set pk>` (created by the store, not here, since there is one per set) and
 * its own vector index file. `hash` makes identical snippets within a set stored once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE snippet_sets (
    pk INTEGER PRIMARY KEY AUTOINCREMENT,
    version_pk INTEGER NOT NULL REFERENCES library_versions(pk) ON DELETE CASCADE,
    status TEXT NOT NULL,
    embed_provider TEXT NOT NULL,
    embed_model TEXT NOT NULL,
    dimensions INTEGER NOT NULL,
    created_at TEXT NOT NULL
  )`)
  await knex.raw(`CREATE TABLE snippets (
    pk INTEGER PRIMARY KEY,
    set_pk INTEGER NOT NULL REFERENCES snippet_sets(pk) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    breadcrumb TEXT NOT NULL,
    page_title TEXT NOT NULL,
    language TEXT NOT NULL,
    body TEXT NOT NULL,
    source TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    hash TEXT NOT NULL,
    UNIQUE (set_pk, hash)
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
