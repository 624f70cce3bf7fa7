import type { Knex } from 'knex'

/**
 * Libraries, their versions (tag '' is the default branch) and the redirects left by renames.
 * A version's `current_set` names the snippet set that serves it; swapping it is how a new
 * snippet set replaces the old one atomically.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE libraries (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    source_type TEXT NOT NULL,
    source_url TEXT NOT NULL,
    branch TEXT,
    trust_score INTEGER NOT NULL DEFAULT 7,
    is_private INTEGER NOT NULL DEFAULT 0,
    is_imported INTEGER NOT NULL DEFAULT 0,
    rules TEXT NOT NULL DEFAULT '[]',
    options TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`)
  await knex.raw(`CREATE TABLE library_versions (
    pk INTEGER PRIMARY KEY,
    library_pk INTEGER NOT NULL REFERENCES libraries(pk) ON DELETE CASCADE,
    tag TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL,
    error_code TEXT,
    error_message TEXT,
    commit_sha TEXT,
    current_set INTEGER,
    total_tokens INTEGER NOT NULL DEFAULT 0,
    total_snippets INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    UNIQUE (library_pk, tag)
  )`)
  await knex.raw(`CREATE TABLE redirects (
    from_id TEXT PRIMARY KEY,
    to_id TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
