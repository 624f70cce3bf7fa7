/**
 * Ended jobs are kept `jobs.retentionDays` (default 30): older ones go with their log lines,
 * at start and after every job, except each library's newest; queued and running jobs never.
 * The setting through the real binary, and the pruning by a worker running a real job.
 */
import { describe, expect, it } from 'vitest'
import { pruneEndedJobs } from '../../src/jobs/retention.js'
import { recoverDataDir } from '../../src/runtime.js'
import { openStore, sqliteOf, type Store } from '../../src/store/index.js'
import { addRepo, buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { pollUntil } from '../helpers/poll.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'

const DAY = 24 * 60 * 60 * 1000
const NOW = new Date('2026-06-30T12:00:00.000Z')
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString()

function library(store: Store, pk: number): void {
  sqliteOf(store).prepare(`INSERT INTO libraries (pk, id, title, source_type, source_url, created_at, updated_at) VALUES (?, ?, 'L', 'github', 'https://github.com/acme/l', ?, ?)`).run(pk, `/acme/l${pk}`, daysAgo(100), daysAgo(100))
}

/** A job of `libraryPk` in `state`, ended `endedDaysAgo` (null: not ended), with one log line. */
function job(store: Store, libraryPk: number | null, state: string, endedDaysAgo: number | null): number {
  const pk = Number(sqliteOf(store).prepare(`INSERT INTO jobs (kind, library_pk, state, created_at, finished_at) VALUES ('ingest', ?, ?, ?, ?)`).run(libraryPk, state, daysAgo(100), endedDaysAgo === null ? null : daysAgo(endedDaysAgo)).lastInsertRowid)
  sqliteOf(store).prepare(`INSERT INTO job_logs (job_pk, time, level, message) VALUES (?, ?, 'info', 'a line')`).run(pk, daysAgo(100))
  return pk
}

const jobPks = (store: Store) => sqliteOf(store).prepare('SELECT pk FROM jobs ORDER BY pk').pluck().all()
const loggedJobs = (store: Store) => sqliteOf(store).prepare('SELECT DISTINCT job_pk FROM job_logs ORDER BY job_pk').pluck().all()

describe('job retention', () => {
  it('removes ended jobs older than the retention with their log lines, keeping each library its newest, and queued or running jobs always', async () => {
    const store = await openStore(await tmpDataDir())
    try {
      library(store, 1)
      library(store, 2)
      const oldSucceeded = job(store, 1, 'succeeded', 40)
      const oldFailed = job(store, 1, 'failed', 31)
      const recent = job(store, 1, 'succeeded', 29)
      const newestOfTwo = job(store, 2, 'failed', 300)
      const detached = job(store, null, 'failed', 90)
      const queued = job(store, 1, 'queued', null)
      const running = job(store, 2, 'running', null)
      expect(await pruneEndedJobs(store, NOW)).toBe(3)
      expect(jobPks(store)).toEqual([recent, newestOfTwo, queued, running])
      expect(loggedJobs(store)).toEqual([recent, newestOfTwo, queued, running])
      expect(await Promise.all([oldSucceeded, oldFailed, detached].map((pk) => store.jobs.byPk(pk)))).toEqual([undefined, undefined, undefined])

      // 0 keeps everything; `recent` is now its library's newest ended job, kept at any retention.
      await store.settings.set('jobs.retentionDays', 0)
      job(store, null, 'succeeded', 1000)
      expect(await pruneEndedJobs(store, NOW)).toBe(0)
      await store.settings.set('jobs.retentionDays', 1)
      expect(await pruneEndedJobs(store, NOW)).toBe(1)
      expect(jobPks(store)).toEqual([recent, newestOfTwo, queued, running])
    } finally {
      await store.close()
    }
  })

  it('is set with lectern config set, which refuses what is not a whole number of days and keeps the value', async () => {
    const dataDir = await tmpDataDir()
    const set = await runCli(['config', 'set', 'jobs.retentionDays', '90', '--data-dir', dataDir])
    expect(set.exitCode, set.stderr).toBe(0)
    for (const bad of ['-1', 'abc', '2.5', '3651', '']) {
      const refused = await runCli(['config', 'set', 'jobs.retentionDays', bad, '--json', '--data-dir', dataDir])
      expect(refused.exitCode, bad).toBe(2)
      expect(JSON.parse(refused.stdout || refused.stderr)).toMatchObject({ error: 'validation_error' })
    }
    const shown = await runCli(['config', 'get', 'jobs.retentionDays', '--json', '--data-dir', dataDir])
    expect(shown.exitCode, shown.stderr).toBe(0)
    expect(JSON.parse(shown.stdout)).toEqual([expect.objectContaining({ name: 'jobs.retentionDays', value: 90, source: 'stored' })])
  })

  it('runs at start and after a job ends', async () => {
    const remotes = await tmpDir('lectern-remotes-')
    await makeGitRepo({ 'README.md': '# Thing\n\n## Install\n\nRun `npm install thing` to install the thing.\n' }, { parent: remotes, name: 'thing' })
    redirectGitHub(remotes)
    const app = await buildTestApp({ startWorker: false })
    const { store } = app.runtime
    library(store, 900)
    const stale = job(store, 900, 'succeeded', 400)
    job(store, 900, 'succeeded', 300)
    const lines: Array<{ obj: object; msg: string }> = []
    await recoverDataDir(app.runtime, { info: (obj: object, msg: string) => lines.push({ obj, msg }), warn: () => {}, error: () => {} })
    expect(lines).toContainEqual({ obj: { jobs: 1 }, msg: 'removed ended jobs past their retention (jobs.retentionDays)' })
    expect(await store.jobs.byPk(stale)).toBeUndefined()

    const older = job(store, null, 'failed', 45)
    await app.runtime.worker.start()
    const added = await addRepo(app, await createKey(app), 'https://github.com/acme/thing')
    expect(added.statusCode, added.body).toBe(200)
    await waitForLibrary(app, '/acme/thing')
    await pollUntil('the job that ended older than the retention to go', async () => (await store.jobs.byPk(older) ? undefined : true))
  })
})
