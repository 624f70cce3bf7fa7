/**
 * The failures GET /api/parse-status and `lectern jobs` list (src/jobs/status.ts), on a real
 * store: a failure stays until its own version is built again, whatever else ends meanwhile.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { LOCAL } from '../../src/library/access.js'
import { parseStatus } from '../../src/jobs/status.js'
import { openStore, type Store } from '../../src/store/index.js'
import type { NewJob } from '../../src/store/jobs.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { testClaimer, heldByTest } from '../helpers/jobs.js'

async function freshStore(): Promise<Store> {
  const store = await openStore(await tmpDataDir())
  onTestFinished(() => store.close())
  return store
}

/** Queues a job, runs it (the oldest queued is claimed) and ends it as given. */
async function ended(store: Store, job: NewJob, outcome: 'succeeded' | 'failed'): Promise<number> {
  const { pk } = await store.jobs.enqueue(job)
  expect((await store.jobs.claimNext(testClaimer))?.pk).toBe(pk)
  if (outcome === 'succeeded') await store.jobs.succeed(heldByTest(pk), 'done')
  else await store.jobs.fail(heldByTest(pk), 'source_unreachable', `job ${pk} could not clone`)
  return pk
}

const failedProjects = async (store: Store) => (await parseStatus(store, LOCAL)).recentFailures.map((f) => `${f.project} ${f.jobId}`)

describe('recent failures', () => {
  it('lists a failure until a later job of its version succeeds; successes of other versions, or of no version, never show', async () => {
    const store = await freshStore()
    const one = await store.libraries.create({ id: '/acme/one', title: 'one', sourceKind: 'github', sourceUrl: 'https://github.com/acme/one' })
    const two = await store.libraries.create({ id: '/acme/two', title: 'two', sourceKind: 'github', sourceUrl: 'https://github.com/acme/two' })
    const ofOne = { kind: 'ingest', libraryPk: one.library.pk, versionPk: one.version.pk }
    const ofTwo = { kind: 'ingest', libraryPk: two.library.pk, versionPk: two.version.pk }
    const firstOfOne = await ended(store, ofOne, 'failed')
    const failedTwo = await ended(store, ofTwo, 'failed')
    const secondOfOne = await ended(store, ofOne, 'failed')
    // Jobs without a version (a re-embedding of a library, a vector rebuild) that succeeded are no failures.
    await ended(store, { kind: 'reembed', libraryPk: two.library.pk }, 'succeeded')
    await ended(store, { kind: 'rebuild-vectors' }, 'succeeded')
    expect(await failedProjects(store)).toEqual([`/acme/one ${secondOfOne}`, `/acme/two ${failedTwo}`, `/acme/one ${firstOfOne}`])

    await ended(store, ofOne, 'succeeded')
    expect(await failedProjects(store)).toEqual([`/acme/two ${failedTwo}`])
    // More successes than the failures scanned (200) do not push an unresolved failure out.
    for (let i = 0; i < 210; i++) await ended(store, ofOne, 'succeeded')
    expect(await failedProjects(store)).toEqual([`/acme/two ${failedTwo}`])
    // A failure after the success is news again.
    const third = await ended(store, ofOne, 'failed')
    expect(await failedProjects(store)).toEqual([`/acme/one ${third}`, `/acme/two ${failedTwo}`])
  })
})
