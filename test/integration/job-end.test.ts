/**
 * However a job ends, its version is left in a true state and its work directory is gone: a
 * refresh that finds no new commit, a failure, a job that a killed process left `running` and
 * that runs again at the next start, and a job whose end a full disk refused to record.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { INGEST_JOB } from '../../src/jobs/kinds.js'
import { createIngestJobHandler } from '../../src/jobs/source-job.js'
import { Worker, type JobLog } from '../../src/jobs/worker.js'
import { jobWorkDir } from '../../src/install/paths.js'
import { addRepo, buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { pollUntil } from '../helpers/poll.js'
import { onPostgres } from '../helpers/stores.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { fill, tmpfs } from '../helpers/tmpfs.js'
import { testParser } from '../helpers/parse.js'
import { testClaimer } from '../helpers/jobs.js'

const GUIDE = { 'docs/guide.md': '# Guide\n\n## Connect\n\nConnect to the server with the connect function and a host name.\n\n```js\nconnect("db.example.com")\n```\n' }

async function waitForJobs(app: FastifyInstance): Promise<void> {
  await pollUntil('the job queue to empty', async () => ((await app.runtime.store.jobs.list({ states: ['queued', 'running'] })).length === 0 ? true : undefined), 30_000)
}

/** The state search reports, as a client reads it. */
async function searchedState(app: FastifyInstance, id: string): Promise<string> {
  const res = await app.inject({ url: '/api/v2/libs/search', query: { libraryName: id } })
  return res.json().results[0].state
}

const workDirs = async (dataDir: string) => (await readdir(path.join(dataDir, 'repos')).catch(() => [] as string[])).filter((n) => n.startsWith('job-'))

describe('every job end', () => {
  it('a refresh that finds no new commit leaves the library finalized, with no clone left', async () => {
    const base = await tmpDir()
    await makeGitRepo(GUIDE, { parent: base, name: 'steady' })
    redirectGitHub(base)
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir })
    const key = await createKey(app)
    await addRepo(app, key, 'https://github.com/acme/steady')
    await waitForLibrary(app, '/acme/steady')
    await waitForJobs(app)

    const refresh = await app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${key}` }, payload: { libraryName: '/acme/steady' } })
    expect(refresh.statusCode).toBe(200)
    await waitForJobs(app)
    expect(await app.runtime.store.jobs.byPk(refresh.json().jobId)).toMatchObject({ state: 'succeeded', statusMessage: expect.stringMatching(/^unchanged at/) })
    expect(await searchedState(app, '/acme/steady')).toBe('finalized')
    expect(await workDirs(dataDir)).toEqual([])
  })

  it('a failed job leaves the library in error with no clone left', async () => {
    const base = await tmpDir()
    await makeGitRepo({ LICENSE: 'MIT License\n\nPermission is hereby granted.\n' }, { parent: base, name: 'bare' })
    redirectGitHub(base)
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir })
    await addRepo(app, await createKey(app), 'https://github.com/acme/bare')
    expect(await waitForLibrary(app, '/acme/bare')).toMatchObject({ state: 'error', errorCode: 'no_code_found' })
    await waitForJobs(app)
    expect(await workDirs(dataDir)).toEqual([])
  })

  it('a job a killed process left running runs again at the next start and ends in a true state, its clone and stray ones removed', async () => {
    const base = await tmpDir()
    await makeGitRepo(GUIDE, { parent: base, name: 'crashed' })
    redirectGitHub(base)
    const dataDir = await tmpDataDir()
    const first = await buildTestApp({ dataDir, startWorker: false, defer: () => {} })
    const key = await createKey(first)
    await addRepo(first, key, 'https://github.com/acme/crashed')
    await first.runtime.worker.drain()
    // What a SIGKILL during a refresh leaves: the job claimed and `running`, its version
    // `processing`, a half-made clone, and a clone of a job that ended long ago.
    const refresh = await first.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${key}` }, payload: { libraryName: '/acme/crashed' } })
    // Claimed by a runner that is then gone: its lease lapses a moment later (at once on SQLite,
    // where the next start is the only runner and takes every running job back).
    const claimed = (await first.runtime.store.jobs.claimNext({ ...testClaimer, leaseUntil: new Date(Date.now() + 1000).toISOString() }))!
    expect(claimed.pk).toBe(refresh.json().jobId)
    await first.runtime.store.libraries.setVersionState(claimed.versionPk!, 'processing')
    const cut = jobWorkDir(first.runtime.store.paths, claimed.pk)
    await mkdir(path.join(cut, 'docs'), { recursive: true })
    await writeFile(path.join(cut, 'docs', 'half.md'), '# Half')
    await mkdir(jobWorkDir(first.runtime.store.paths, 9999), { recursive: true })
    await first.close()

    const second = await buildTestApp({ dataDir })
    expect(await workDirs(dataDir)).not.toContain('job-9999')
    await waitForJobs(second)
    expect(await second.runtime.store.jobs.byPk(claimed.pk)).toMatchObject({ state: 'succeeded', attempts: 2, statusMessage: expect.stringMatching(/^unchanged at/) })
    expect(await searchedState(second, '/acme/crashed')).toBe('finalized')
    expect(await workDirs(dataDir)).toEqual([])
    expect((await second.inject({ url: '/api/v2/context', query: { libraryId: '/acme/crashed', query: 'connect' } })).statusCode).toBe(200)
  })

  it('a library reads finalized only once its job has ended: a client that waits for it can refresh at once', async () => {
    const base = await tmpDir()
    await makeGitRepo(GUIDE, { parent: base, name: 'steady' })
    redirectGitHub(base)
    const app = await buildTestApp({ startWorker: false })
    const { store, embedders } = app.runtime
    const key = await createKey(app)
    await addRepo(app, key, 'https://github.com/acme/steady')
    const job = (await store.jobs.list({ states: ['queued'] }))[0]!

    // The real handler builds and finalizes the set; the worker records the job's end after it.
    const ingest = createIngestJobHandler({ store, embedders, http: app.runtime.http, parser: testParser, chromiumPath: '', mode: app.runtime.mode })
    const seen: { state?: string; refresh?: number } = {}
    const log: JobLog = { info: () => {}, warn: () => {}, error: () => {} }
    const worker = new Worker(store, { [INGEST_JOB]: async (ctx) => {
      const message = await ingest(ctx)
      seen.state = await searchedState(app, '/acme/steady')
      seen.refresh = (await app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${key}` }, payload: { libraryName: '/acme/steady' } })).statusCode
      return message
    } }, log, { pollMs: 20 })
    await worker.start()
    try {
      await pollUntil('the job to end', async () => ((await store.jobs.byPk(job.pk))?.state === 'succeeded' ? true : undefined))
      expect(seen).toEqual({ state: 'processing', refresh: 409 })
      expect(await searchedState(app, '/acme/steady')).toBe('finalized')
      expect((await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/steady', query: 'connect' } })).statusCode).toBe(200)
      const refresh = await app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${key}` }, payload: { libraryName: '/acme/steady' } })
      expect(refresh.statusCode, refresh.body).toBe(200)
    } finally {
      await worker.stop()
    }
  })

  // A full data volume refuses SQLite's writes; a PostgreSQL store's disk is the database server's.
  it.skipIf(onPostgres())('a refresh whose end a full disk refuses to record settles its version once space returns, with no other job', async () => {
    const base = await tmpDir()
    await makeGitRepo(GUIDE, { parent: base, name: 'steady' })
    redirectGitHub(base)
    const mountPoint = await tmpfs('32m')
    const app = await buildTestApp({ dataDir: path.join(mountPoint, 'data'), startWorker: false })
    const { store, embedders } = app.runtime
    const key = await createKey(app)
    await addRepo(app, key, 'https://github.com/acme/steady')
    await app.runtime.worker.drain()
    const refresh = await app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${key}` }, payload: { libraryName: '/acme/steady' } })
    const job = (await store.jobs.byPk(refresh.json().jobId))!

    // The real git handler finds no new commit; the disk fills the moment it returns.
    const ingest = createIngestJobHandler({ store, embedders, http: app.runtime.http, parser: testParser, chromiumPath: '', mode: app.runtime.mode })
    let free: (() => void) | undefined
    const errors: string[] = []
    const log: JobLog = { info: () => {}, warn: () => {}, error: (_fields, message) => void errors.push(message) }
    const worker = new Worker(store, { [INGEST_JOB]: async (ctx) => {
      const message = await ingest(ctx)
      free = fill(mountPoint)
      return message
    } }, log, { pollMs: 20 })
    await worker.start()
    try {
      await pollUntil('the job end to be refused', () => (errors.includes('could not record how the job ended; retrying before the next job') ? true : undefined))
      expect((await store.jobs.byPk(job.pk))?.state).toBe('running')
      expect((await store.libraries.versionByPk(job.versionPk!))?.state).toBe('processing')
      free!()
      await pollUntil('the version to settle', async () => ((await store.libraries.versionByPk(job.versionPk!))?.state === 'processing' ? undefined : true))
      expect((await store.libraries.versionByPk(job.versionPk!))?.state).toBe('finalized')
      expect(await store.jobs.byPk(job.pk)).toMatchObject({ state: 'succeeded', statusMessage: expect.stringMatching(/^unchanged at/) })
      expect(await store.jobs.list({ states: ['queued', 'running'] })).toEqual([])
    } finally {
      await worker.stop()
    }
    expect(await searchedState(app, '/acme/steady')).toBe('finalized')
  })
  it.each([
    ['queues the running job again', false, { state: 'queued', statusMessage: 'interrupted by a stop; queued again', errorCode: null }],
    ['ends it cancelled when a cancel was asked a moment before (before the cancel watch saw it)', true, { state: 'failed', errorCode: 'cancelled' }],
  ])('a stop %s', async (_name, cancel, expected) => {
    const app = await buildTestApp({ startWorker: false })
    const { store } = app.runtime
    const library = await store.libraries.create({ id: '/acme/slow', title: 'slow', sourceKind: 'github', sourceUrl: 'https://github.com/acme/slow' })
    const job = await store.jobs.enqueue({ kind: INGEST_JOB, libraryPk: library.library.pk, versionPk: library.version.pk })
    let started: () => void = () => {}
    const running = new Promise<void>((resolve) => (started = resolve))
    const log: JobLog = { info: () => {}, warn: () => {}, error: () => {} }
    // A handler that works until it is aborted, as a clone does.
    const worker = new Worker(store, { [INGEST_JOB]: (ctx) => new Promise<string>((_resolve, reject) => {
      started()
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))
    }) }, log, { pollMs: 20 })
    await worker.start()
    await running
    if (cancel) await store.jobs.requestCancel(job.pk, 'admin')
    await worker.stop()
    expect(await store.jobs.byPk(job.pk)).toMatchObject(expected)
    expect((await store.libraries.versionByPk(library.version.pk))?.state).toBe(cancel ? 'error' : 'initial')
  })
})
