/**
 * A job's own log lines (src/jobs/job-log.ts) on a real store: what a handler logs is kept with
 * its fields, secrets never, in batches, and a database that refuses the lines never fails the job.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { JobLogRecorder } from '../../src/jobs/job-log.js'
import type { JobLog } from '../../src/jobs/worker.js'
import { openStore, sqliteOf, type Store } from '../../src/store/index.js'
import { tmpDataDir } from '../helpers/tmp.js'

const TOKEN = 'glpat-unitT0kenValue'
const silent: JobLog = { info: () => {}, warn: () => {}, error: () => {} }

async function storeWithJob(): Promise<{ store: Store; jobPk: number }> {
  const store = await openStore(await tmpDataDir())
  onTestFinished(() => store.close())
  return { store, jobPk: (await store.jobs.enqueue({ kind: 'ingest' })).pk }
}

describe('a job\'s log lines', () => {
  it('keeps the level, message and fields, but never a secret: by key, in credentials of URLs and headers, or the job\'s own token anywhere', async () => {
    const { store, jobPk } = await storeWithJob()
    const log = new JobLogRecorder(store, jobPk, silent, new Set(['jobId', 'libraryId']), TOKEN)
    log.info({ jobId: jobPk, libraryId: '/acme/x', files: 3, tokens: 1200 }, 'read 3 files')
    log.warn(
      {
        gitToken: 'anything',
        headers: { Authorization: 'Bearer lct_abc', cookie: 'lectern_session=abc' },
        options: { password: 'pw', apiKey: 'k', clientSecret: 's' },
        url: 'https://user:hunter2@git.example.com/acme/x.git',
        echoed: `remote said ${TOKEN}`,
        err: Object.assign(new Error(`clone failed for ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`), { code: 'EGIT' }),
      },
      `fetch of https://x-access-token:${TOKEN}@github.com/acme/x failed; Authorization: Basic abc`,
    )
    log.error({ big: 'x'.repeat(5000), deep: { a: { b: { c: { d: { e: 1 } } } } } }, 'y'.repeat(3000))
    await log.flush()
    const lines = await store.jobLogs.list(jobPk)
    expect(lines.map((l) => l.level)).toEqual(['info', 'warn', 'error'])
    expect(lines[0]).toEqual({ id: expect.any(Number), time: expect.any(String), level: 'info', message: 'read 3 files', fields: { files: 3, tokens: 1200 } })
    expect(lines[1].message).toBe('fetch of https://[REDACTED]@github.com/acme/x failed; Authorization: [REDACTED]')
    expect(lines[1].fields).toEqual({
      gitToken: '[redacted]',
      headers: { Authorization: '[redacted]', cookie: '[redacted]' },
      options: { password: '[redacted]', apiKey: '[redacted]', clientSecret: '[redacted]' },
      url: 'https://[REDACTED]@git.example.com/acme/x.git',
      echoed: 'remote said [REDACTED]',
      err: { type: 'Error', message: 'clone failed for [REDACTED]', code: 'EGIT' },
    })
    expect(lines[2].message).toHaveLength(2001)
    expect(lines[2].fields).toEqual({ big: `${'x'.repeat(1000)}…`, deep: { a: { b: { c: '[…]' } } } })
    const stored = JSON.stringify(sqliteOf(store).prepare('SELECT * FROM job_logs').all())
    for (const secret of [TOKEN, 'hunter2', 'lct_abc', 'lectern_session=abc', '"pw"']) expect(stored).not.toContain(secret)
  })

  it('writes in batches: nothing before the batch is due, everything at the job\'s end', async () => {
    const { store, jobPk } = await storeWithJob()
    const log = new JobLogRecorder(store, jobPk, silent, new Set(), undefined)
    for (let i = 0; i < 150; i++) log.info({}, `line ${i}`)
    // The first hundred went as one batch (written once this turn of the event loop ends); the rest wait for the timer or the end.
    await new Promise(setImmediate)
    expect(await store.jobLogs.list(jobPk)).toHaveLength(100)
    await log.flush()
    const lines = await store.jobLogs.list(jobPk)
    expect(lines.map((l) => l.message)).toEqual(Array.from({ length: 150 }, (_, i) => `line ${i}`))
    expect(await store.jobLogs.list(jobPk, lines[148].id)).toEqual([lines[149]])
  })

  it('drops the lines the database refuses and says so once in the process log, without throwing', async () => {
    const { store, jobPk } = await storeWithJob()
    const said: string[] = []
    const processLog: JobLog = { ...silent, error: (_obj, msg) => void said.push(msg) }
    const log = new JobLogRecorder(store, jobPk, processLog, new Set(), undefined)
    sqliteOf(store).exec('CREATE TRIGGER refuse BEFORE INSERT ON job_logs BEGIN SELECT RAISE(ABORT, \'database or disk is full\'); END')
    log.info({}, 'one')
    await expect(log.flush()).resolves.toBeUndefined()
    log.info({}, 'two')
    await log.flush()
    expect(said).toEqual(["could not keep the job's log lines (is the disk full?); they are dropped"])
    sqliteOf(store).exec('DROP TRIGGER refuse')
    log.info({}, 'three')
    await log.flush()
    expect((await store.jobLogs.list(jobPk)).map((l) => l.message)).toEqual(['three'])
  })

  it('goes with its job', async () => {
    const { store, jobPk } = await storeWithJob()
    await store.jobLogs.append(jobPk, [{ time: new Date().toISOString(), level: 'info', message: 'kept' }])
    sqliteOf(store).prepare('DELETE FROM jobs WHERE pk = ?').run(jobPk)
    expect(sqliteOf(store).prepare('SELECT count(*) FROM job_logs').pluck().get()).toBe(0)
  })
})
