/**
 * The real `lectern serve` keeps answering while it works: liveness probes stay fast and no
 * request fails while a large repository is indexed (the job worker runs on its own thread)
 * and while a backup is written (snapshot and compression off the event loop). The bound is
 * generous for a loaded test machine; `npm run bench` measures the 100 ms target under 50 clients.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { saveEmbedding } from '../../src/embed/pool.js'
import { openStore } from '../../src/store/index.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { largeDocs } from '../helpers/large-docs.js'
import { pollUntil } from '../helpers/poll.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 300_000 })

/**
 * How fast probes answer while the server works. Before the job thread and the async backup
 * compression, the event loop stopped for 0.8 to 2.7 s again and again (once per batch or chunk):
 * probes that met a stop waited it out, and a window held few probes, many of them slow. After,
 * probes answer within 260 ms, but a machine other suites load can hold up the server process
 * itself now and then (one probe of 653 took 515 ms in CI). So a few stragglers are allowed
 * (SLOW_SHARE of the window, at least one), and none as long as the ingest's stops were.
 */
const PROBE_BOUND_MS = 400
const SLOW_SHARE = 0.02
const STOPPED_LOOP_MS = 1000
/** Clients asking questions meanwhile. */
const CLIENTS = 2
const PROBE_PAUSE_MS = 20
/** Probes a window must hold to say anything. */
const MIN_PROBES = 20

const defer = suiteTeardown()
let serverEnv: Record<string, string>

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo({ 'README.md': '# Small\n\n## Install\n\nRun `npm install small`.\n\n```js\nsmall.start()\n```\n' }, { parent: remotes, name: 'small' })
  // About 4,200 snippets: seconds of indexing.
  await makeGitRepo(largeDocs(700), { parent: remotes, name: 'large' })
  serverEnv = { ...gitRedirectEnv(remotes), LECTERN_RATE_LIMIT_ANONYMOUS: '0', LECTERN_RATE_LIMIT_KEYED: '0' }
})

interface Observed {
  probeMs: number[]
  probeStatuses: number[]
  clientStatuses: number[]
}

/**
 * Until `done(observed so far)` holds: times /api/health one request at a time, while CLIENTS
 * ask questions of /acme/small back to back (context, library search); every status is kept.
 */
async function observeWhile(server: ServerProcess, done: (observed: Observed) => Promise<boolean>): Promise<Observed> {
  const observed: Observed = { probeMs: [], probeStatuses: [], clientStatuses: [] }
  let finished = false
  const watch = (async () => {
    while (!(await done(observed))) await new Promise((resolve) => setTimeout(resolve, 100))
    finished = true
  })()
  const probe = (async () => {
    while (!finished) {
      const started = performance.now()
      const res = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined)
      await res?.arrayBuffer()
      observed.probeMs.push(performance.now() - started)
      observed.probeStatuses.push(res?.status ?? 0)
      await new Promise((resolve) => setTimeout(resolve, PROBE_PAUSE_MS))
    }
  })()
  const client = async (n: number) => {
    for (let i = 0; !finished; i++) {
      const path = i % 2 === 0 ? `/api/v2/context?libraryId=/acme/small&query=install%20${n}-${i}` : `/api/v2/libs/search?libraryName=small&query=install`
      const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined)
      await res?.arrayBuffer()
      observed.clientStatuses.push(res?.status ?? 0)
    }
  }
  await Promise.all([watch, probe, ...Array.from({ length: CLIENTS }, (_, n) => client(n))])
  return observed
}

function expectResponsive(observed: Observed, what: string): void {
  const probes = observed.probeMs.length
  const slow = observed.probeMs.filter((ms) => ms >= PROBE_BOUND_MS).sort((a, b) => b - a)
  expect(probes, `probes during ${what}`).toBeGreaterThanOrEqual(MIN_PROBES)
  expect(observed.probeStatuses.every((s) => s === 200), `probe statuses during ${what}`).toBe(true)
  expect(slow.length, `probes of ${probes} over ${PROBE_BOUND_MS} ms during ${what}: ${slow.map(Math.round).join(', ')}`).toBeLessThanOrEqual(Math.max(1, Math.floor(probes * SLOW_SHARE)))
  expect(slow[0] ?? 0, `slowest of ${probes} probes during ${what}`).toBeLessThan(STOPPED_LOOP_MS)
  expect(observed.clientStatuses.length).toBeGreaterThan(0)
  expect(observed.clientStatuses.filter((s) => s !== 200), `failed client requests during ${what}`).toEqual([])
}

async function stateOf(server: ServerProcess, id: string): Promise<string | undefined> {
  const res = await fetch(`${server.url}/api/v2/libs/search?libraryName=${encodeURIComponent(id)}`)
  if (res.status !== 200) return undefined
  const { results } = (await res.json()) as { results: Array<{ id: string; state: string }> }
  return results.find((r) => r.id === id)?.state
}

async function add(server: ServerProcess, key: string, name: string): Promise<void> {
  const res = await fetch(`${server.url}/api/v2/add/repo/github`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ docsRepoUrl: `https://github.com/acme/${name}` }),
  })
  expect(res.status, await res.text()).toBe(200)
}

describe('a busy server stays responsive', () => {
  it(`probes answer within ${PROBE_BOUND_MS} ms, but for a few stragglers, and no request fails while a large repository indexes, then while a backup is written`, async () => {
    const dataDir = await tmpDataDir()
    const store = await openStore(dataDir)
    const { key } = await store.keys.create('load-test')
    const admin = await store.users.create({ email: 'admin@example.com', password: 'correct horse battery staple', role: 'admin' })
    const cookie = `lectern_session=${(await store.users.startSession(admin.id)).token}`
    // Wide vectors: tens of MB of vector files (stored as i8) for the backup to compress, from a few thousand snippets.
    await saveEmbedding(store, { provider: 'hash', dimensions: 8192 })
    await store.close()
    const server = await startServer(dataDir, serverEnv)
    await add(server, key, 'small')
    await pollUntil('/acme/small to finalize', async () => ((await stateOf(server, '/acme/small')) === 'finalized' ? true : undefined), 60_000)

    await add(server, key, 'large')
    await pollUntil('/acme/large to start indexing', async () => ((await stateOf(server, '/acme/large')) === 'processing' ? true : undefined), 60_000)
    const duringIngest = await observeWhile(server, async () => (await stateOf(server, '/acme/large')) !== 'processing')
    expect(await stateOf(server, '/acme/large')).toBe('finalized')
    expectResponsive(duringIngest, 'the ingest')

    const backUp = async () => {
      const started = await fetch(`${server.url}/api/backup`, { method: 'POST', headers: { cookie } })
      expect(started.status, await started.text()).toBe(202)
    }
    await backUp()
    // Backups back to back until the window holds enough probes: a fast disk ends one early.
    const duringBackup = await observeWhile(server, async (observed) => {
      const status = (await (await fetch(`${server.url}/api/backup/status`, { headers: { cookie } })).json()) as { running: boolean }
      if (status.running) return false
      if (observed.probeMs.length >= MIN_PROBES) return true
      await backUp()
      return false
    })
    const status = (await (await fetch(`${server.url}/api/backup/status`, { headers: { cookie } })).json()) as { last: { ok: boolean; size: number } }
    expect(status.last).toMatchObject({ ok: true })
    expectResponsive(duringBackup, 'the backup')
  })
})
