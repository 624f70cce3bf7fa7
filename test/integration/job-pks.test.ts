/**
 * Job pks are never reused on a data directory upgraded from before the rule (migration 0020):
 * the jobs table is rebuilt with AUTOINCREMENT and keeps its rows, their log lines, its index and
 * the cascades that delete a library's jobs and their lines. (Over HTTP: jobs-api.test.ts.)
 */
import fs from 'node:fs'
import Database from 'better-sqlite3'
import knexFactory from 'knex'
import { describe, expect, it } from 'vitest'
import { MIGRATIONS, sourceOf } from '../../migrations/index.js'
import { dataPaths } from '../../src/install/paths.js'
import { openStore, sqliteOf } from '../../src/store/index.js'
import { tmpDir } from '../helpers/tmp.js'

describe('job pks', () => {
  it('are not reused on a data directory upgraded from before the rule, whose jobs and log lines all survive', async () => {
    const dataDir = await tmpDir('lectern-data-') // empty: the schema of an older Lectern is built below
    const paths = dataPaths(dataDir)
    fs.mkdirSync(paths.vectors, { recursive: true })
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: paths.database }, useNullAsDefault: true })
    await knex.migrate.latest({
      migrationSource: sourceOf(MIGRATIONS.slice(0, MIGRATIONS.findIndex(([name]) => name === '0019_team_pks_never_reused') + 1)),
    })
    await knex.destroy()
    const now = '2026-01-01T00:00:00.000Z'
    const db = new Database(paths.database)
    db.pragma('foreign_keys = ON')
    db.exec(`INSERT INTO libraries (pk, id, title, source_type, source_url, created_at, updated_at) VALUES (1, '/acme/kept', 'Kept', 'github', 'https://github.com/acme/kept', '${now}', '${now}'), (2, '/acme/gone', 'Gone', 'github', 'https://github.com/acme/gone', '${now}', '${now}');
      INSERT INTO jobs (pk, kind, library_pk, state, created_at, cancel_requested_by) VALUES (1, 'ingest', 1, 'succeeded', '${now}', NULL), (2, 'ingest', 1, 'failed', '${now}', 'ops@example.com'), (3, 'ingest', 2, 'succeeded', '${now}', NULL);
      INSERT INTO job_logs (job_pk, time, level, message) VALUES (1, '${now}', 'info', 'one'), (2, '${now}', 'warn', 'two'), (3, '${now}', 'info', 'three');
      DELETE FROM libraries WHERE pk = 2;`)
    db.close()

    const store = await openStore(dataDir)
    try {
      const rows = sqliteOf(store).prepare('SELECT pk, state, cancel_requested_by FROM jobs ORDER BY pk').all()
      expect(rows).toEqual([
        { pk: 1, state: 'succeeded', cancel_requested_by: null },
        { pk: 2, state: 'failed', cancel_requested_by: 'ops@example.com' },
      ])
      expect(sqliteOf(store).prepare('SELECT job_pk, message FROM job_logs ORDER BY pk').all()).toEqual([
        { job_pk: 1, message: 'one' },
        { job_pk: 2, message: 'two' },
      ])
      expect(sqliteOf(store).pragma('foreign_key_check')).toEqual([])
      expect(sqliteOf(store).prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs'").pluck().all()).toEqual(['jobs_state', 'jobs_one_active_per_version'])
      // Job 3 went with its library before the upgrade and left no trace, so 3 is next; from then on no pk is given out twice.
      const insert = sqliteOf(store).prepare("INSERT INTO jobs (kind, library_pk, state, created_at) VALUES ('ingest', 1, 'queued', ?)")
      const next = Number(insert.run(now).lastInsertRowid)
      expect(next).toBe(3)
      sqliteOf(store).prepare('DELETE FROM jobs WHERE pk = ?').run(next)
      expect(Number(insert.run(now).lastInsertRowid)).toBe(4)
      const jobPks = () => sqliteOf(store).prepare('SELECT pk FROM jobs ORDER BY pk').pluck().all()
      // Two processes migrating together can both run a migration that has no transaction (knex
      // re-reads what is applied only inside one): running 0019 and 0020 again changes nothing.
      const again = knexFactory({ client: 'better-sqlite3', connection: { filename: paths.database }, useNullAsDefault: true })
      try {
        for (const name of ['0019_team_pks_never_reused', '0020_job_pks_never_reused']) await MIGRATIONS.find(([n]) => n === name)![1].up(again)
      } finally {
        await again.destroy()
      }
      expect(jobPks()).toEqual([1, 2, 4])
      expect(sqliteOf(store).prepare('SELECT count(*) AS n FROM job_logs').get()).toEqual({ n: 2 })
      expect(Number(insert.run(now).lastInsertRowid)).toBe(5)
      // The cascades hold after the rebuild: removing the library removes its jobs and their lines.
      sqliteOf(store).prepare('DELETE FROM libraries WHERE pk = 1').run()
      expect(sqliteOf(store).prepare('SELECT (SELECT count(*) FROM jobs) AS jobs, (SELECT count(*) FROM job_logs) AS lines').get()).toEqual({ jobs: 0, lines: 0 })
    } finally {
      await store.close()
    }
  })
})
