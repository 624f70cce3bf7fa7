/**
 * Three replicas of one install on a real PostgreSQL, behind a real nginx running
 * deploy/nginx-replicas.conf as shipped (its upstream pointed at the replicas' loopback ports), all
 * through the real binary: a library added through one answers from the others within a second; a
 * session and a rate limit hold across replicas; a scheduled backup runs once per slot; the job of
 * a replica killed mid-way is re-run by another while nginx keeps answering; an outage of
 * PostgreSQL is answered 503 where the database is needed, from memory where it is not, and
 * survived without a restart; a replica with another key refuses to start.
 */
import fs from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { exitCodeOf } from '../../cli/run.js'
import { isArchiveName } from '../../src/backup/names.js'
import { SYNC_MS } from '../../src/net/shared-rate-limit.js'
import { openStore, type Store } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'
import { makeGitRepo } from '../helpers/git.js'
import { GIT_TOKEN, startHeldGitHost, type HeldGitHost } from '../helpers/held-git.js'
import { startReplicasProxy } from '../helpers/nginx.js'
import { pollUntil } from '../helpers/poll.js'
import { ancestorPids } from '../helpers/system.js'
import { startPostgres, type Postgres } from '../helpers/postgres.js'
import { TEST_SECRET_KEY } from '../helpers/secret-key.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { createDatabase, withDatabase } from '../helpers/stores.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

// Three servers, nginx and PostgreSQL on a loaded two-core machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 })

const defer = suiteTeardown()
const PASSWORD = 'correct horse battery staple'
/** Anonymous calls per window and client address: the rate limit the replicas share. */
const ANONYMOUS_LIMIT = 10
/** Long enough that the rate-limit test's calls (about 10 s) rarely meet a window's end: it waits if they would. */
const RATE_WINDOW_SECONDS = 3600

let postgres: Postgres
let env: Record<string, string>
let replicas: ServerProcess[]
let proxy: string
let store: Store
let git: HeldGitHost
let keyed: Record<string, string>
let backups: string

const portOf = (server: ServerProcess) => Number(new URL(server.url).port)
const context = (base: string, libraryId: string, query: string) => fetch(`${base}/api/v2/context?${new URLSearchParams({ libraryId, query, type: 'txt' })}`, { headers: keyed })
const newKey = async () => (await runCli(['keys', 'create', '--name', 'ci', '--data-dir', await tmpDir('lectern-cli-', defer)], env)).stdout.trim()

/** Adds github.com/acme/<name> through `base` and returns its job once it has succeeded. */
async function addRepo(base: string, name: string): Promise<number> {
  const added = await fetch(`${base}/api/v2/add/repo/github`, { method: 'POST', headers: { ...keyed, 'content-type': 'application/json' }, body: JSON.stringify({ docsRepoUrl: `https://github.com/acme/${name}`, gitToken: GIT_TOKEN }) })
  const text = await added.text()
  expect(added.status, text).toBe(200)
  return Number(/\(job (\d+)\)/.exec(text)![1])
}

beforeAll(async () => {
  postgres = await startPostgres(defer)
  await createDatabase(postgres.url, 'replicas')
  const remotes = await tmpDir('lectern-remotes-', defer)
  for (const name of ['first', 'second']) {
    await makeGitRepo({ 'README.md': `# ${name}\n\n## Install\n\nRun \`npm install ${name}\` to install ${name}.\n\n\`\`\`js\n${name}.start()\n\`\`\`\n` }, { parent: remotes, name, defer })
  }
  git = await startHeldGitHost(remotes, defer)
  env = {
    DATABASE_URL: withDatabase(postgres.url, 'replicas'),
    LECTERN_SECRET_KEY: TEST_SECRET_KEY,
    ...git.env,
    LECTERN_JOB_LEASE: '3',
    LECTERN_RATE_LIMIT_KEYED: '0',
    LECTERN_RATE_LIMIT_ANONYMOUS: String(ANONYMOUS_LIMIT),
    LECTERN_RATE_LIMIT_WINDOW: String(RATE_WINDOW_SECONDS),
  }
  keyed = { authorization: `Bearer ${await newKey()}` }
  const admin = await runCli(['admin', 'create', 'ops@example.com', '--data-dir', await tmpDir('lectern-cli-', defer)], env, { input: `${PASSWORD}\n` })
  expect(admin.exitCode, admin.stderr).toBe(0)
  // Every minute, so that slots fire while the other tests run.
  backups = await tmpDir('lectern-backups-', defer)
  const schedule = await runCli(['backup', 'config', 'set', '--dir', backups, '--schedule', '* * * * *', '--data-dir', await tmpDir('lectern-cli-', defer)], env)
  expect(schedule.exitCode, schedule.stderr).toBe(0)
  replicas = []
  for (let i = 0; i < 3; i++) replicas.push(await startServer(await tmpDir('lectern-replica-', defer), env, defer, { args: ['--workers', '1'] }))
  proxy = await startReplicasProxy(replicas.map(portOf), defer)
  store = await openStore(await tmpDir('lectern-store-', defer), { databaseUrl: env.DATABASE_URL, env })
})

afterAll(async () => {
  await store?.close()
})

describe('three replicas behind nginx', () => {
  it('answers a library added through one replica from the others within a second', async () => {
    const job = await addRepo(replicas[0]!.url, 'first')
    const done = await pollUntil('the job to succeed', async () => ((await store.jobs.byPk(job))?.state === 'succeeded' ? Date.now() : undefined), 60_000)
    // When each request was sent, not when its answer came: a loaded machine may take long over the
    // first answer from a library, but a request sent a second after the job must find it.
    const lastRefusedAt = await Promise.all(
      replicas.slice(1).map(async (r) => {
        let refusedAt = -Infinity
        await pollUntil(`${r.url} to answer`, async () => {
          const sentAt = Date.now()
          if ((await context(r.url, '/acme/first', 'install')).status === 200) return true
          refusedAt = sentAt
          return undefined
        }, 10_000)
        return refusedAt
      }),
    )
    for (const at of lastRefusedAt) expect(at - done).toBeLessThan(1000)
    const through = await context(proxy, '/acme/first', 'install')
    expect(through.status).toBe(200)
    expect(await through.text()).toContain('npm install first')
  })

  it('holds a session and a rate limit across replicas', async () => {
    const login = await fetch(`${replicas[0]!.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }) })
    expect(login.status).toBe(200)
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!
    for (const base of [...replicas.map((r) => r.url), proxy, proxy, proxy]) expect((await fetch(`${base}/api/backup/status`, { headers: { cookie } })).status).toBe(200)
    expect((await fetch(`${replicas.at(-1)!.url}/api/backup/status`)).status).toBe(401)

    // Anonymous calls through nginx go to each replica in turn, one every 400 ms: each replica
    // hears the others' counts at every sync (SYNC_MS). Counted alone, each of the three would grant all 8 it gets.
    // The calls must fall in one window (windows start on the clock): across a boundary the limit is granted twice.
    const windowMs = RATE_WINDOW_SECONDS * 1000
    const left = windowMs - (Date.now() % windowMs)
    if (left < 60_000) await sleep(left + 100)
    const statuses: number[] = []
    for (let i = 0; i < 24; i++) {
      statuses.push((await fetch(`${proxy}/api/v2/libs/search?libraryName=nothing`)).status)
      await sleep(400)
    }
    const granted = statuses.filter((s) => s !== 429).length
    expect(statuses.filter((s) => s !== 429 && s !== 404)).toEqual([])
    // The documented slack: what the other replicas granted since their last sync (docs/scaling.md).
    expect(granted).toBeGreaterThanOrEqual(ANONYMOUS_LIMIT)
    expect(granted).toBeLessThanOrEqual(ANONYMOUS_LIMIT + (replicas.length - 1) * Math.ceil((2 * SYNC_MS) / (400 * replicas.length)))
  })

  it('runs each scheduled backup slot on one replica only', async () => {
    const archives = async () => (await fs.readdir(backups)).filter(isArchiveName)
    // Slots fire every minute; wait for two, so that a second replica had a slot to take twice.
    await pollUntil('two scheduled backups', async () => ((await archives()).length >= 2 ? true : undefined), 150_000)
    const cliDir = await tmpDir('lectern-cli-')
    expect((await runCli(['backup', 'config', 'set', '--schedule', 'off', '--data-dir', cliDir], env)).exitCode).toBe(0)
    const status = await pollUntil('the last backup to end', async () => {
      const seen = JSON.parse((await runCli(['backup', 'status', '--json', '--data-dir', cliDir], env)).stdout) as { running: boolean; last: { trigger: string; ok: boolean } }
      return seen.running ? undefined : seen
    })
    expect(status.last).toMatchObject({ ok: true, trigger: 'schedule' })
    const slots = (await archives()).map((name) => /T(\d\d-\d\d)-\d\d/.exec(name)![1])
    expect(new Set(slots).size).toBe(slots.length)
  })

  it("re-runs the job of a replica killed mid-way on another, while nginx goes on answering", async () => {
    git.hold = true
    const job = await addRepo(proxy, 'second')
    const first = await pollUntil('the job to run, inside a held fetch', async () => {
      const running = await store.jobs.byPk(job)
      return running?.state === 'running' && git.held > 0 ? running : undefined
    })
    const lineage = ancestorPids(first.runner!.pid)
    const killed = replicas.findIndex((r) => lineage.includes(r.process.pid!))
    expect(killed).toBeGreaterThanOrEqual(0)
    git.hold = false
    replicas[killed]!.process.kill('SIGKILL')
    await replicas[killed]!.process.catch(() => {})
    // Every request through nginx while the job fails over is answered: a refused connection goes to the next replica.
    const answers: number[] = []
    const done = await pollUntil('another replica to re-run the job to its end', async () => {
      answers.push((await context(proxy, '/acme/first', 'install')).status)
      const current = await store.jobs.byPk(job)
      return current?.state === 'succeeded' ? current : undefined
    }, 60_000)
    expect(done.attempts).toBe(2)
    expect(done.owner).not.toBe(first.owner)
    expect(answers.length).toBeGreaterThan(3)
    expect(new Set(answers)).toEqual(new Set([200]))
    expect(await (await context(proxy, '/acme/second', 'install')).text()).toContain('npm install second')
    replicas.splice(killed, 1)
  })

  it('answers 503 where PostgreSQL is needed while it is down, from memory where not, and recovers without a restart', async () => {
    // Each replica has seen the key and loaded the library; a key no replica has seen needs the database.
    for (const r of replicas) expect((await context(r.url, '/acme/first', 'install')).status).toBe(200)
    const unseen = await newKey()
    const search = (key: string) => fetch(`${proxy}/api/v2/libs/search?libraryName=nothing`, { headers: { authorization: `Bearer ${key}` } })

    await postgres.stop()
    const stoppedAt = Date.now()
    await pollUntil('every replica to say the database is unreachable', async () => {
      const states = await Promise.all(replicas.map(async (r) => (await fetch(`${r.url}/api/ready`)).status))
      return states.every((s) => s === 503) ? true : undefined
    })
    const ready = await fetch(`${proxy}/api/ready`)
    expect(ready.status).toBe(503)
    expect(await ready.json()).toMatchObject({ error: 'database_unreachable' })
    // With its address over the anonymous limit too, a key that cannot be checked is answered 503, not counted as anonymous (429).
    const anonymous = async () => (await fetch(`${replicas[0]!.url}/api/v2/libs/search?libraryName=nothing`)).status
    await pollUntil('the address to be over its anonymous limit', async () => ((await anonymous()) === 429 ? true : undefined))
    const refused = await fetch(`${replicas[0]!.url}/api/v2/libs/search?libraryName=nothing`, { headers: { authorization: `Bearer ${unseen}` } })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(await refused.json()).toMatchObject({ error: 'database_unreachable' })
    // A 503 does not take the replicas out of nginx's rotation: what memory answers is still answered.
    for (let i = 0; i < 2 * replicas.length; i++) {
      const answer = await context(proxy, '/acme/first', 'install')
      expect(answer.status, await answer.clone().text()).toBe(200)
    }
    await sleep(Math.max(0, 10_000 - (Date.now() - stoppedAt)))

    await postgres.start()
    await pollUntil('every replica ready again', async () => {
      const states = await Promise.all(replicas.map(async (r) => (await fetch(`${r.url}/api/ready`)).status))
      return states.every((s) => s === 200) ? true : undefined
    }, 30_000)
    expect((await fetch(`${proxy}/api/ready`)).status).toBe(200)
    expect((await search(unseen)).status).toBe(404)
    for (const r of replicas) expect(r.process.exitCode).toBeNull()
  })

  it('refuses to start a replica with another key', async () => {
    const other = await runCli(['serve', '--port', '0', '--data-dir', await tmpDir('lectern-replica-')], { ...env, LECTERN_SECRET_KEY: 'b'.repeat(64) })
    expect(other.exitCode).toBe(exitCodeOf('secret_key_mismatch'))
    expect(other.stderr).toContain("LECTERN_SECRET_KEY is not the key this database's secrets were sealed with")
  })
})
