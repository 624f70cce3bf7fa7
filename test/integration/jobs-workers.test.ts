/**
 * Cancelling a running job under `lectern serve --workers 2`, the real binary: jobs run in worker
 * 1's job thread, while a cancel may reach worker 2 (or come from a CLI, a third process). The
 * request goes through the database, and the job must still stop within a second. The job is
 * kept running by a git host that holds its fetches open (test/helpers/held-git.ts).
 */
import { describe, expect, it, vi } from 'vitest'
import type { JobView } from '../../src/jobs/view.js'
import { openStore } from '../../src/store/index.js'
import type { JobLogLine } from '../../src/store/job-logs.js'
import { runCli } from '../helpers/cli.js'
import { makeGitRepo } from '../helpers/git.js'
import { GIT_TOKEN, startHeldGitHost } from '../helpers/held-git.js'
import { inspect } from '../helpers/inspect-db.js'
import { pollUntil } from '../helpers/poll.js'
import { startServer } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { collectLog, send, workerOf } from '../helpers/workers.js'

// Real server processes (three) and a CLI run on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const defer = suiteTeardown()
const PASSWORD = 'correct horse battery staple'

interface JobRow {
  state: string
  error_code: string | null
  cancel_requested_at: string | null
  finished_at: string | null
}

const jobRow = (dataDir: string, id: number) => inspect(dataDir, (db) => db.prepare('SELECT state, error_code, cancel_requested_at, finished_at FROM jobs WHERE pk = ?').get(id) as JobRow)

describe('cancelling a job with lectern serve --workers 2', () => {
  it('stops the job in worker 1 within a second when the cancel reaches worker 2, and when lectern jobs cancel asks from another process', async () => {
    const remotes = await tmpDir('lectern-remotes-', defer)
    await makeGitRepo({ 'README.md': '# Thing\n\n## Install\n\nRun `npm install thing` to install the thing.\n\n```js\nthing.start()\n```\n' }, { parent: remotes, name: 'thing', defer })
    const git = await startHeldGitHost(remotes, defer)
    const dataDir = await tmpDataDir(defer)
    const store = await openStore(dataDir)
    const key = (await store.keys.create('submit')).key
    await store.users.create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' })
    await store.close()
    const server = await startServer(dataDir, { ...git.env, LECTERN_RATE_LIMIT_ANONYMOUS: '0', LECTERN_RATE_LIMIT_KEYED: '0' }, defer, { logLevel: 'info', args: ['--workers', '2'] })
    const lines = collectLog(server)
    const keyed = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }

    const added = await send(`${server.url}/api/v2/add/repo/github`, { method: 'POST', headers: keyed, body: JSON.stringify({ docsRepoUrl: 'https://github.com/acme/thing', gitToken: GIT_TOKEN }) })
    expect(added.status, added.body).toBe(200)
    await pollUntil('/acme/thing to finalize', () => (inspect(dataDir, (db) => db.prepare(`SELECT state FROM library_versions`).pluck().get()) === 'finalized' ? true : undefined), 60_000)
    const question = `${server.url}/api/v2/context?libraryId=/acme/thing&query=install`
    const before = (await send(question)).body
    const login = await send(`${server.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }) })
    const cookie = String(login.headers['set-cookie']).split(';')[0]

    /** A forced refresh, held inside git's fetch until cancelled. */
    async function runningRefresh(): Promise<number> {
      const held = git.held
      const refresh = await send(`${server.url}/api/v1/refresh`, { method: 'POST', headers: keyed, body: JSON.stringify({ libraryName: '/acme/thing', gitToken: GIT_TOKEN, force: true }) })
      expect(refresh.status, refresh.body).toBe(200)
      const id = (JSON.parse(refresh.body) as { jobId: number }).jobId
      await pollUntil(`job ${id} inside a held fetch`, () => (git.held > held && jobRow(dataDir, id).state === 'running' ? true : undefined), 60_000)
      return id
    }

    async function cancelledWithinASecond(id: number): Promise<void> {
      const row = await pollUntil(`job ${id} to end`, () => {
        const job = jobRow(dataDir, id)
        return job.state === 'running' ? undefined : job
      })
      expect(row).toMatchObject({ state: 'failed', error_code: 'cancelled' })
      expect(Date.parse(row.finished_at!) - Date.parse(row.cancel_requested_at!)).toBeLessThan(1000)
    }

    git.hold = true
    const first = await runningRefresh()
    // Connections reach the workers in turn: after one answered by worker 1, the next goes to worker 2.
    await pollUntil('a request answered by worker 1', async () => ((await workerOf(lines, await send(`${server.url}/api/auth/mcp`))) === 1 ? true : undefined))
    const cancel = await send(`${server.url}/api/jobs/${first}/cancel`, { method: 'POST', headers: { cookie } })
    expect(cancel.status, cancel.body).toBe(200)
    expect(JSON.parse(cancel.body)).toMatchObject({ id: first, state: 'running', cancelRequestedAt: expect.any(String) })
    expect(await workerOf(lines, cancel)).toBe(2)
    expect(lines.filter((l) => l.msg === 'job started').map((l) => l.worker)).toEqual([1, 1])
    await cancelledWithinASecond(first)

    const second = await runningRefresh()
    const cli = await runCli(['jobs', 'cancel', String(second), '--data-dir', dataDir])
    expect(cli.exitCode, cli.stderr).toBe(0)
    expect(cli.stdout).toBe(`Asked job ${second} to stop; it ends as cancelled within about a second (see \`lectern jobs\`).`)
    await cancelledWithinASecond(second)

    // Both workers still answer from the set the library had before.
    for (let i = 0; i < 2; i++) {
      const after = await send(question)
      expect(after.status).toBe(200)
      expect(after.body).toBe(before)
    }
    const view = JSON.parse((await send(`${server.url}/api/jobs/${second}`, { headers: { cookie } })).body) as JobView
    expect(view).toMatchObject({ state: 'failed', errorCode: 'cancelled', libraryId: '/acme/thing' })
    const log = JSON.parse((await send(`${server.url}/api/jobs/${second}/log`, { headers: { cookie } })).body) as { lines: JobLogLine[] }
    expect(log.lines.map((l) => l.message)).toEqual(['job started', 'cancel requested; stopping the job', 'job cancelled'])
    expect(log.lines[1].fields).toEqual({ by: 'lectern jobs cancel' })
  })
})
