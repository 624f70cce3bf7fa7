import type { Knex } from 'knex'

/**
 * Where a snippet's content also lives: `includes` lists the repository files its code was
 * included from (`docs_src/tutorial001.py`), `also_at` the other pages showing the same content
 * (one copy is kept, in the section that best explains it). Both are JSON arrays of strings.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE snippets ADD COLUMN includes TEXT NOT NULL DEFAULT '[]'`)
  await knex.raw(`ALTER TABLE snippets ADD COLUMN also_at TEXT NOT NULL DEFAULT '[]'`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
