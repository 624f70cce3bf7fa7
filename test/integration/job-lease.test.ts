/**
 * A runner holds the job it runs by a lease (src/jobs/lease.ts), on both stores: a worker that
 * finds its job taken over stops it and records nothing of that run, cannot swap in what it built,
 * and a job whose runner went quiet is queued again and run, on PostgreSQL once its lease lapsed,
 * on SQLite at once (the starting worker holds the data directory's lock: it is the only runner).
 * And a replica on PostgreSQL tidies its own files of the sets another replica's jobs removed.
 */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it, onTestFinished } from 'vitest'
import { WorkerTidying } from '../../src/jobs/handlers.js'
import { Worker, type JobHandler, type JobLog } from '../../src/jobs/worker.js'
import { engineFilePath } from '../../src/install/paths.js'
import type { Store } from '../../src/store/index.js'
import { freshStore, sameDatabase, type StoreKind } from '../helpers/stores.js'
import { pollUntil } from '../helpers/poll.js'
import { suiteTeardown } from '../helpers/tmp.js'
import { heldByTest, testClaimer } from '../helpers/jobs.js'

const serverDefer = suiteTeardown()

function recordingLog(): JobLog & { lines: string[] } {
  const lines: string[] = []
  const line = (_: object, msg: string) => void lines.push(msg)
  return { lines, info: line, warn: line, error: line }
}

function startWorker(store: Store, handler: JobHandler, leaseMs: number, log = recordingLog()) {
  const worker = new Worker(store, { test: handler }, log, { pollMs: 50, runner: { owner: 'worker', leaseMs } })
  onTestFinished(() => worker.stop())
  return { worker, log }
}

describe.each<StoreKind>(['sqlite', 'postgres'])('job leases on %s', (kind) => {
  it('stops a job the worker no longer holds, and records nothing of that run', async () => {
    const store = await freshStore(kind, onTestFinished, serverDefer)
    const handler: JobHandler = async (ctx) => {
      while (!ctx.signal.aborted) await sleep(20)
      throw ctx.signal.reason
    }
    const { worker, log } = startWorker(store, handler, 1200)
    const job = await store.jobs.enqueue({ kind: 'test' })
    await worker.start()
    const running = await pollUntil('the worker to claim the job', async () => {
      const row = await store.jobs.byPk(job.pk)
      return row?.state === 'running' ? row : undefined
    })
    expect(running).toMatchObject({ owner: 'worker' })
    // Another runner takes it over, as after the worker was cut off longer than its lease.
    expect(await store.jobs.requeue(running, 'interrupted; queued again')).toBe(true)
    expect((await store.jobs.claimNext(testClaimer))?.pk).toBe(job.pk)
    await pollUntil('the worker to give the job up', () => (log.lines.includes('job given up: another runner took it over') ? true : undefined))
    await worker.stop()
    expect(await store.jobs.byPk(job.pk)).toMatchObject({ state: 'running', owner: testClaimer.owner, finishedAt: null })
    expect(log.lines).toContain('the job was taken over by another runner; this run recorded nothing')
    // The runner that holds it ends it.
    await store.jobs.succeed(heldByTest(job.pk), 'done')
    expect((await store.jobs.byPk(job.pk))?.state).toBe('succeeded')
  })

  it('refuses the fence to a worker whose job was taken over, before its work is swapped in', async () => {
    const store = await freshStore(kind, onTestFinished, serverDefer)
    let takenOver!: () => void
    let fencedOnce!: () => void
    const taken = new Promise<void>((resolve) => (takenOver = resolve))
    const holding = new Promise<void>((resolve) => (fencedOnce = resolve))
    let fenced: unknown
    const handler: JobHandler = async (ctx) => {
      await ctx.fence()
      fencedOnce()
      await taken
      fenced = await ctx.fence().then(
        () => 'the fence let the worker through',
        (err: unknown) => err,
      )
      throw fenced
    }
    // A lease long enough that no renewal notices first: the fence alone stops it.
    const { worker } = startWorker(store, handler, 60_000)
    const job = await store.jobs.enqueue({ kind: 'test' })
    await worker.start()
    const running = await pollUntil('the worker to claim the job', async () => {
      const row = await store.jobs.byPk(job.pk)
      return row?.state === 'running' ? row : undefined
    })
    // Taken over only once the handler passed the fence while it held the job.
    await holding
    expect(await store.jobs.requeue(running, 'interrupted; queued again')).toBe(true)
    expect((await store.jobs.claimNext(testClaimer))?.pk).toBe(job.pk)
    takenOver()
    await pollUntil('the fence to refuse', () => fenced)
    expect(String(fenced)).toContain(`Job ${job.pk} is no longer held by this runner`)
    await worker.stop()
    expect(await store.jobs.byPk(job.pk)).toMatchObject({ state: 'running', owner: testClaimer.owner })
  })

  it(`queues again the job of a runner that went quiet, and runs it: ${kind === 'postgres' ? 'once its lease has lapsed' : 'at once, being the only runner'}`, async () => {
    const store = await freshStore(kind, onTestFinished, serverDefer)
    const ran: number[] = []
    const { worker, log } = startWorker(store, async (ctx) => void ran.push(ctx.job.pk), 1200)
    const quiet = await store.jobs.enqueue({ kind: 'test' })
    const leaseUntil = new Date(Date.now() + 1500).toISOString()
    await store.jobs.claimNext({ owner: 'gone', leaseUntil })
    await worker.start()
    if (kind === 'postgres') {
      await sleep(500)
      // Its lease still runs: another runner may be running it, and it is left alone.
      expect(await store.jobs.byPk(quiet.pk)).toMatchObject({ state: 'running', owner: 'gone' })
    }
    const done = await pollUntil('the job to be run again', async () => {
      const row = await store.jobs.byPk(quiet.pk)
      return row?.state === 'succeeded' ? row : undefined
    })
    expect(done).toMatchObject({ owner: 'worker', attempts: 2 })
    if (kind === 'postgres') expect(Date.parse(done.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(leaseUntil))
    expect(ran).toEqual([quiet.pk])
    expect(log.lines.some((line) => line.startsWith('jobs whose runner is gone'))).toBe(true)
  })
})

describe.each<StoreKind>(['sqlite', 'postgres'])('jobs.concurrency on %s', (kind) => {
  it('runs as many jobs at once as asked, and a stop puts every running one back in the queue', async () => {
    const store = await freshStore(kind, onTestFinished, serverDefer)
    let running = 0
    let most = 0
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const handler: JobHandler = async (ctx) => {
      most = Math.max(most, ++running)
      try {
        await Promise.race([released, new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)))])
      } finally {
        running--
      }
    }
    const worker = new Worker(store, { test: handler }, recordingLog(), { pollMs: 50, concurrency: 2, runner: { owner: 'worker', leaseMs: 30_000 } })
    onTestFinished(() => worker.stop())
    const jobs = [await store.jobs.enqueue({ kind: 'test' }), await store.jobs.enqueue({ kind: 'test' }), await store.jobs.enqueue({ kind: 'test' })]
    await worker.start()
    await pollUntil('two jobs to run at once', () => (running === 2 ? true : undefined))
    expect((await store.jobs.byPk(jobs[2]!.pk))?.state).toBe('queued')
    await worker.stop()
    expect((await store.jobs.list({ states: ['queued'] })).map((job) => job.pk).sort()).toEqual(jobs.map((job) => job.pk).sort())

    release()
    const again = new Worker(store, { test: handler }, recordingLog(), { pollMs: 50, concurrency: 2, runner: { owner: 'again', leaseMs: 30_000 } })
    onTestFinished(() => again.stop())
    await again.start()
    await pollUntil('every job to succeed', async () => ((await store.jobs.list({ states: ['succeeded'] })).length === 3 ? true : undefined))
    expect(most).toBe(2)
  })
})

describe('tidying on PostgreSQL', () => {
  it("removes a replica's files of the sets another replica's job removed, and leaves the live sets' files", async () => {
    const store = await freshStore('postgres', onTestFinished, serverDefer)
    const other = await sameDatabase(store, onTestFinished)
    const { version } = await store.libraries.create({ id: '/acme/tidy', title: 'Tidy', sourceKind: 'github', sourceUrl: 'https://github.com/acme/tidy' })
    const live = await store.snippets.createSet(version.pk, { provider: 'hash', model: 'hash-v1', dimensions: 256 })
    await store.snippets.finalizeSet(live.pk, version.pk, { tokens: 0, snippets: 0, commitSha: null })
    const gone = await store.snippets.createSet(version.pk, { provider: 'hash', model: 'hash-v1', dimensions: 256 })
    // The other replica had both loaded, so its engine directory holds a file of each.
    await mkdir(other.paths.engine, { recursive: true })
    for (const set of [live, gone]) await writeFile(engineFilePath(other.paths, set.pk), 'engine')
    await store.snippets.dropSet(gone.pk)
    const tidying = new WorkerTidying(other, () => {}, recordingLog())
    await tidying.housekeep()
    expect(existsSync(engineFilePath(other.paths, gone.pk))).toBe(false)
    expect(existsSync(engineFilePath(other.paths, live.pk))).toBe(true)
  })
})
