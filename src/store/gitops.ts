/**
 * The libraries GitOps added (migration 0034), each with the fingerprint of the manifest entry
 * it was last indexed from.
 */
import { nowIso } from './db.js'
import type { Sql } from './sql.js'

export interface ManagedLibrary {
  libraryPk: number
  libraryId: string
  fingerprint: string
  syncedAt: string
}

export interface GitOpsRepository {
  /** Every library GitOps added, by ID. */
  managed(): Promise<ManagedLibrary[]>
  /** Records that GitOps added (or re-indexed) the library from an entry with this fingerprint. */
  manage(libraryPk: number, fingerprint: string): Promise<void>
}

export function createGitOpsRepository(sql: Sql): GitOpsRepository {
  return {
    managed: async () =>
      (
        await sql.all<{ library_pk: number; id: string; fingerprint: string; synced_at: string }>(
          'SELECT g.library_pk, l.id, g.fingerprint, g.synced_at FROM gitops_libraries g JOIN libraries l ON l.pk = g.library_pk ORDER BY l.id',
        )
      ).map((row) => ({ libraryPk: row.library_pk, libraryId: row.id, fingerprint: row.fingerprint, syncedAt: row.synced_at })),
    async manage(libraryPk, fingerprint) {
      await sql.run(
        `INSERT INTO gitops_libraries (library_pk, fingerprint, synced_at) VALUES (?, ?, ?)
         ON CONFLICT (library_pk) DO UPDATE SET fingerprint = excluded.fingerprint, synced_at = excluded.synced_at`,
        [libraryPk, fingerprint, nowIso()],
      )
    },
  }
}
