/**
 * The extraction report of each library version (migration 0023), stored as the JSON text the
 * job wrote; src/extraction/report.ts owns its shape and validates it when it is read.
 */
import { nowIso } from './db.js'
import type { Sql } from './sql.js'

export interface StoredExtractionReport {
  versionPk: number
  /** The job that wrote it (ended jobs are pruned: its row may be gone). */
  jobPk: number | null
  createdAt: string
  json: string
}

export interface ExtractionReportsRepository {
  /** Replaces the version's report. */
  put(versionPk: number, jobPk: number | null, json: string): Promise<void>
  get(versionPk: number): Promise<StoredExtractionReport | undefined>
  /** Forgets the version's report: its snippets no longer come from an ingest (an import replaced them). */
  remove(versionPk: number): Promise<void>
}

export function createExtractionReportsRepository(sql: Sql): ExtractionReportsRepository {
  return {
    async put(versionPk, jobPk, json) {
      await sql.run(
        `INSERT INTO extraction_reports (version_pk, job_pk, created_at, report) VALUES (?, ?, ?, ?)
         ON CONFLICT (version_pk) DO UPDATE SET job_pk = excluded.job_pk, created_at = excluded.created_at, report = excluded.report`,
        [versionPk, jobPk, nowIso(), json],
      )
    },
    async remove(versionPk) {
      await sql.run('DELETE FROM extraction_reports WHERE version_pk = ?', [versionPk])
    },
    async get(versionPk) {
      const row = await sql.get<{ version_pk: number; job_pk: number | null; created_at: string; report: string }>(
        'SELECT version_pk, job_pk, created_at, report FROM extraction_reports WHERE version_pk = ?',
        [versionPk],
      )
      return row && { versionPk: row.version_pk, jobPk: row.job_pk, createdAt: row.created_at, json: row.report }
    },
  }
}
