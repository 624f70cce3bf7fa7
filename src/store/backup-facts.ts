/**
 * What a backup's snapshot of the database holds, for its manifest: the schema's migrations, each
 * library with its versions, and the live snippet sets. Read in the snapshot itself (an SQLite
 * copy, or the exported snapshot a PostgreSQL dump is taken in), so the manifest describes exactly
 * the data in the archive. The same SQL on both databases.
 */
import type { Sql } from './sql.js'

export interface SnapshotFacts {
  migrations: string[]
  /** Each library with its versions; `partial` when a job was queued or running for it, or one of its sets was being built. */
  libraries: Array<{ id: string; versions: Array<{ tag: string; state: string; snippets: number }>; partial: boolean }>
  liveSets: number[]
}

/** Text in the order of its bytes in UTF-8, whatever the database's collation. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

export async function readBackupFacts(sql: Sql): Promise<SnapshotFacts> {
  const versions = await sql.all<{ library_pk: number; id: string; tag: string | null; state: string | null; snippets: number | null }>(
    `SELECT l.pk AS library_pk, l.id, v.tag, v.state, v.total_snippets AS snippets
     FROM libraries l LEFT JOIN library_versions v ON v.library_pk = l.pk`,
  )
  const busy = new Set(
    (
      await sql.all<{ pk: number }>(
        `SELECT library_pk AS pk FROM jobs WHERE state IN ('queued', 'running') AND library_pk IS NOT NULL
         UNION SELECT v.library_pk FROM snippet_sets s JOIN library_versions v ON v.pk = s.version_pk WHERE s.status = 'building'`,
      )
    ).map((row) => row.pk),
  )
  versions.sort((a, b) => byBytes(a.id, b.id) || byBytes(a.tag ?? '', b.tag ?? ''))
  const libraries = new Map<string, SnapshotFacts['libraries'][number]>()
  for (const row of versions) {
    const entry = libraries.get(row.id) ?? { id: row.id, versions: [], partial: busy.has(row.library_pk) }
    if (row.tag !== null) entry.versions.push({ tag: row.tag, state: row.state ?? 'unknown', snippets: row.snippets ?? 0 })
    libraries.set(row.id, entry)
  }
  const liveSets = (await sql.all<{ pk: number }>(`SELECT pk FROM snippet_sets WHERE status = 'live' ORDER BY pk`)).map((row) => row.pk)
  const migrations = (await sql.all<{ name: string }>('SELECT name FROM knex_migrations ORDER BY id')).map((row) => row.name)
  return { migrations, libraries: [...libraries.values()], liveSets }
}
