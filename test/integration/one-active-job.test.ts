/**
 * One queued or running job per library version, held by the database (migration 0024) rather
 * than by each caller's check: a second is refused with library_busy, jobs of no version are not
 * held, and a data directory upgraded with two active jobs of one version keeps one.
 */
import fs from 'node:fs'
import Database from 'better-sqlite3'
import knexFactory from 'knex'
import { describe, expect, it, onTestFinished } from 'vitest'
import { MIGRATIONS, sourceOf } from '../../migrations/index.js'
import { dataPaths } from '../../src/install/paths.js'
import { openStore, sqliteOf } from '../../src/store/index.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { testClaimer, heldByTest } from '../helpers/jobs.js'

describe('one active job per library version', () => {
  it('refuses a second queued or running job of a version with library_busy, and takes one again once it ended', async () => {
    const store = await openStore(await tmpDataDir())
    onTestFinished(() => store.close())
    const { library, version } = await store.libraries.create({ id: '/acme/widgets', title: 'widgets', sourceKind: 'github', sourceUrl: 'https://github.com/acme/widgets' })
    const first = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk })
    await expect(store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk })).rejects.toThrow(
      expect.objectContaining({ code: 'library_busy', message: expect.stringContaining(`job ${first.pk}, queued`) }),
    )
    expect((await store.jobs.claimNext(testClaimer))?.pk).toBe(first.pk)
    await expect(store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk })).rejects.toThrow(expect.objectContaining({ code: 'library_busy', message: expect.stringContaining('running') }))
    // Another version of the library, and jobs of no version, are not held.
    const v2 = await store.libraries.ensureVersion(library.pk, 'v2')
    expect((await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: v2.pk })).state).toBe('queued')
    await store.jobs.enqueue({ kind: 'reembed', libraryPk: library.pk, payload: { setPk: 1 } })
    await store.jobs.enqueue({ kind: 'reembed', libraryPk: library.pk, payload: { setPk: 2 } })
    await store.jobs.succeed(heldByTest(first.pk))
    expect((await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk })).state).toBe('queued')
    expect(sqliteOf(store).prepare('SELECT count(*) FROM jobs').pluck().get()).toBe(5)
  })

  it('on upgrade keeps the running job of a version, else its oldest, and ends the others as cancelled, saying why', async () => {
    const dataDir = await tmpDir('lectern-data-')
    const paths = dataPaths(dataDir)
    fs.mkdirSync(paths.vectors, { recursive: true })
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: paths.database }, useNullAsDefault: true })
    await knex.migrate.latest({ migrationSource: sourceOf(MIGRATIONS.slice(0, MIGRATIONS.findIndex(([name]) => name === '0023_extraction_reports') + 1)) })
    await knex.destroy()
    const now = '2026-01-01T00:00:00.000Z'
    const db = new Database(paths.database)
    db.exec(`INSERT INTO libraries (pk, id, title, source_type, source_url, created_at, updated_at) VALUES (1, '/acme/widgets', 'Widgets', 'github', 'https://github.com/acme/widgets', '${now}', '${now}');
      INSERT INTO library_versions (pk, library_pk, tag, state, updated_at) VALUES (1, 1, '', 'processing', '${now}'), (2, 1, 'v2', 'processing', '${now}');
      INSERT INTO jobs (pk, kind, library_pk, version_pk, state, secret, created_at, started_at) VALUES
        (1, 'ingest', 1, 1, 'succeeded', NULL, '${now}', '${now}'),
        (2, 'ingest', 1, 1, 'queued', 'v1.sealed.token.x', '${now}', NULL),
        (3, 'ingest', 1, 1, 'running', NULL, '${now}', '${now}'),
        (4, 'ingest', 1, 2, 'queued', NULL, '${now}', NULL),
        (5, 'reembed', 1, NULL, 'queued', NULL, '${now}', NULL),
        (6, 'reembed', 1, NULL, 'queued', NULL, '${now}', NULL),
        (7, 'ingest', 1, 2, 'queued', NULL, '${now}', NULL);`)
    db.close()
    const store = await openStore(dataDir)
    onTestFinished(() => store.close())
    const jobs = sqliteOf(store).prepare('SELECT pk, state, error_code, error_message, secret, finished_at FROM jobs ORDER BY pk').all()
    const cancelled = { state: 'failed', error_code: 'cancelled', error_message: expect.stringContaining('another job of the same library version'), secret: null, finished_at: now }
    expect(jobs).toEqual([
      expect.objectContaining({ pk: 1, state: 'succeeded' }),
      { pk: 2, ...cancelled },
      expect.objectContaining({ pk: 3, state: 'running', error_code: null }),
      expect.objectContaining({ pk: 4, state: 'queued' }),
      expect.objectContaining({ pk: 5, state: 'queued' }),
      expect.objectContaining({ pk: 6, state: 'queued' }),
      { pk: 7, ...cancelled },
    ])
    await expect(store.jobs.enqueue({ kind: 'ingest', libraryPk: 1, versionPk: 1 })).rejects.toThrow(expect.objectContaining({ code: 'library_busy' }))
  })
})
