/**
 * The admin jobs API (the dashboard's Parse Queue): GET /api/jobs, /api/jobs/:id, its log lines,
 * POST /api/jobs/:id/cancel, through inject with real jobs: real git over smart HTTP from a
 * host whose fetches the test holds open (test/helpers/held-git.ts) to keep a job running.
 */
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { JobView } from '../../src/jobs/view.js'
import { jobWorkDir } from '../../src/install/paths.js'
import type { JobLogLine } from '../../src/store/job-logs.js'
import { sessionCookie } from '../backup/helpers.js'
import { addRepo, buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo, redirectGitHub, symlinkTo } from '../helpers/git.js'
import { GIT_BASIC, GIT_TOKEN, startHeldGitHost, type HeldGitHost } from '../helpers/held-git.js'
import { pollUntil } from '../helpers/poll.js'
import { setProcessEnv, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { sqliteOf } from '../../src/store/index.js'
import { testClaimer } from '../helpers/jobs.js'

const THING = {
  'README.md': '# Thing\n\n## Install\n\nRun `npm install thing` to install the thing.\n\n```js\nthing.start()\n```\n',
  'docs/usage.md': '# Usage\n\n## Start the thing\n\nCall start to begin.\n\n```js\nthing.start({ port: 8080 })\n```\n',
}

interface Setup {
  app: FastifyInstance
  git: HeldGitHost
  key: string
  admin: string
}

/** An app whose worker runs in this process, github.com/acme/* and /echo/* served by a held git host. */
async function setup(repos: Record<string, Record<string, string>> = { thing: THING, other: THING }): Promise<Setup> {
  const remotes = await tmpDir('lectern-remotes-')
  for (const [name, files] of Object.entries(repos)) await makeGitRepo(files, { parent: remotes, name })
  const git = await startHeldGitHost(remotes, onTestFinished)
  setProcessEnv(git.env)
  const app = await buildTestApp()
  return { app, git, key: await createKey(app), admin: await sessionCookie(app, 'admin') }
}

function add(s: Setup, repo: string) {
  return s.app.inject({ method: 'POST', url: '/api/v2/add/repo/github', headers: { authorization: `Bearer ${s.key}` }, payload: { docsRepoUrl: `https://github.com/acme/${repo}`, gitToken: GIT_TOKEN } })
}

const get = (s: Setup, url: string) => s.app.inject({ url, headers: { cookie: s.admin } })
const cancel = (s: Setup, id: number) => s.app.inject({ method: 'POST', url: `/api/jobs/${id}/cancel`, headers: { cookie: s.admin } })
const jobOf = async (s: Setup, id: number) => (await get(s, `/api/jobs/${id}`)).json<JobView>()
const logOf = async (s: Setup, id: number, after?: number) => (await get(s, `/api/jobs/${id}/log${after === undefined ? '' : `?after=${after}`}`)).json<{ lines: JobLogLine[] }>().lines

function jobIdOf(res: LightMyRequestResponse): number {
  expect(res.statusCode, res.body).toBe(200)
  return Number(/\(job (\d+)\)/.exec(res.json<{ message: string }>().message)![1])
}

/** Until the job runs and git is inside a held fetch. */
async function heldRunning(s: Setup, id: number): Promise<JobView> {
  await pollUntil(`job ${id} to run and git to wait on the host`, () => (s.git.held > 0 ? true : undefined))
  return pollUntil(`job ${id} running`, async () => {
    const job = await jobOf(s, id)
    return job.state === 'running' ? job : undefined
  })
}

const ended = (s: Setup, id: number) =>
  pollUntil(`job ${id} to end`, async () => {
    const job = await jobOf(s, id)
    return job.state === 'succeeded' || job.state === 'failed' ? job : undefined
  })

function expectNoSecret(...bodies: string[]): void {
  for (const body of bodies) {
    expect(body).not.toContain(GIT_TOKEN)
    expect(body).not.toContain(GIT_BASIC)
    expect(body).not.toMatch(/"(payload|secret)"/)
  }
}

describe('the jobs API refuses callers who are not admins, and bad input', () => {
  const endpoints: Array<[string, string]> = [
    ['GET', '/api/jobs'],
    ['GET', '/api/jobs/1'],
    ['GET', '/api/jobs/1/log'],
    ['POST', '/api/jobs/1/cancel'],
  ]

  it.each(endpoints)('%s %s: 401 without a session or with an API key alone, 403 for a member', async (method, url) => {
    const app = await buildTestApp({ startWorker: false })
    const member = await sessionCookie(app, 'member')
    const anonymous = await app.inject({ method: method as 'GET', url })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json()).toEqual({ error: 'not_authenticated', message: expect.any(String) })
    const keyed = await app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${await createKey(app)}` } })
    expect(keyed.statusCode).toBe(401)
    expect(keyed.json()).toMatchObject({ error: 'not_authenticated' })
    const refused = await app.inject({ method: method as 'GET', url, headers: { cookie: member } })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual({ error: 'forbidden', message: expect.any(String) })
  })

  it.each([
    '/api/jobs?state=bogus',
    '/api/jobs?state=queued,',
    '/api/jobs?state=queued,done',
    '/api/jobs?limit=0',
    '/api/jobs?limit=501',
    '/api/jobs?limit=ten',
    '/api/jobs?limit=1.5',
    '/api/jobs/abc',
    '/api/jobs/0',
    '/api/jobs/-3/log',
    '/api/jobs/1/log?after=-1',
    '/api/jobs/1/log?after=last',
  ])('GET %s is 400 validation_error for an admin', async (url) => {
    const app = await buildTestApp({ startWorker: false })
    const res = await app.inject({ url, headers: { cookie: await sessionCookie(app, 'admin') } })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toEqual({ error: 'validation_error', message: expect.any(String) })
  })

  it('an unknown job is 404 job_not_found on every endpoint, and POST /api/jobs/abc/cancel is 400', async () => {
    const app = await buildTestApp({ startWorker: false })
    const cookie = await sessionCookie(app, 'admin')
    for (const [method, url] of [['GET', '/api/jobs/999'], ['GET', '/api/jobs/999/log'], ['POST', '/api/jobs/999/cancel']]) {
      const res = await app.inject({ method: method as 'GET', url, headers: { cookie } })
      expect(res.statusCode, url).toBe(404)
      expect(res.json()).toEqual({ error: 'job_not_found', message: 'No job with ID 999.' })
    }
    const bad = await app.inject({ method: 'POST', url: '/api/jobs/abc/cancel', headers: { cookie } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ error: 'validation_error' })
  })
})

describe('listing and cancelling jobs', () => {
  it("never reuses a job ID: after the library of the newest job is removed, the next job gets a new ID and the old one stays unknown", async () => {
    const s = await setup()
    const first = jobIdOf(await add(s, 'thing'))
    await waitForLibrary(s.app, '/acme/thing')
    const removed = await s.app.inject({ method: 'DELETE', url: '/api/libraries/acme/thing', headers: { cookie: s.admin } })
    expect(removed.statusCode, removed.body).toBe(200)
    expect((await get(s, `/api/jobs/${first}`)).statusCode).toBe(404)
    const second = jobIdOf(await add(s, 'other'))
    expect(second).toBeGreaterThan(first)
    await waitForLibrary(s.app, '/acme/other')
    expect((await get(s, `/api/jobs/${first}`)).json()).toMatchObject({ error: 'job_not_found' })
  })

  it('cancels a running refresh: the library keeps its previous answers and state, the job fails cancelled within a second, its work directory goes', async () => {
    const s = await setup()
    const first = jobIdOf(await add(s, 'thing'))
    expect((await waitForLibrary(s.app, '/acme/thing')).state).toBe('finalized')
    const question = '/api/v2/context?libraryId=/acme/thing&query=start+the+thing'
    const before = await s.app.inject({ url: question })
    expect(before.statusCode).toBe(200)
    const { store } = s.app.runtime
    const versionBefore = (await store.libraries.version((await store.libraries.byId('/acme/thing'))!.pk, ''))!

    s.git.hold = true
    const refresh = await s.app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${s.key}` }, payload: { libraryName: '/acme/thing', gitToken: GIT_TOKEN, force: true } })
    expect(refresh.statusCode, refresh.body).toBe(200)
    const id = refresh.json<{ jobId: number }>().jobId
    const running = await heldRunning(s, id)
    expect(running).toMatchObject({ id, kind: 'ingest', libraryId: '/acme/thing', version: null, position: null, errorCode: null, finishedAt: null, attempts: 1, cancelRequestedAt: null })
    expect(running.progress).toMatch(/^cloning /)
    expect(running.elapsedMs).toEqual(expect.any(Number))
    const workDir = jobWorkDir(store.paths, id)
    await pollUntil('the clone to start', () => (existsSync(workDir) ? true : undefined))

    const listed = await get(s, '/api/jobs')
    expect(listed.json<{ jobs: JobView[] }>().jobs.map((j) => [j.id, j.state])).toEqual([[id, 'running'], [first, 'succeeded']])

    const answer = await cancel(s, id)
    expect(answer.statusCode, answer.body).toBe(200)
    expect(answer.json()).toMatchObject({ id, state: 'running', cancelRequestedAt: expect.any(String) })
    const job = await ended(s, id)
    expect(job).toMatchObject({ state: 'failed', errorCode: 'cancelled', errorMessage: `Job ${id} was cancelled while running; refresh the library, or add it again, to run it anew.` })
    // The worker noticed the request (in the database) and the job ended within a second.
    expect(Date.parse(job.finishedAt!) - Date.parse(job.cancelRequestedAt!)).toBeLessThan(1000)
    expect(job.elapsedMs).toBe(Date.parse(job.finishedAt!) - Date.parse(job.startedAt!))

    // The live set is the one before: same set, same answers, state finalized with the reason noted.
    const versionAfter = (await store.libraries.version(versionBefore.libraryPk, ''))!
    expect(versionAfter).toMatchObject({ state: 'finalized', currentSet: versionBefore.currentSet, errorCode: 'cancelled', totalSnippets: versionBefore.totalSnippets })
    const after = await s.app.inject({ url: question })
    expect(after.statusCode).toBe(200)
    expect(after.body).toBe(before.body)
    expect(existsSync(workDir)).toBe(false)
    expect(sqliteOf(store).prepare(`SELECT count(*) FROM snippet_sets WHERE status = 'building'`).pluck().get()).toBe(0)

    const lines = await logOf(s, id)
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['info', 'job started'],
      ['warn', 'cancel requested; stopping the job'],
      ['warn', 'job cancelled'],
    ])
    expect(lines[1].fields).toEqual({ by: expect.stringMatching(/^admin admin-.*@example\.com$/) })
    expect(lines.every((l, i) => i === 0 || l.id > lines[i - 1].id)).toBe(true)

    const again = await cancel(s, id)
    expect(again.statusCode).toBe(409)
    expect(again.json()).toEqual({ error: 'job_not_active', message: `Job ${id} has already failed; only a queued or running job can be cancelled.` })
    const done = await cancel(s, first)
    expect(done.json()).toEqual({ error: 'job_not_active', message: `Job ${first} has already succeeded; only a queued or running job can be cancelled.` })
    expectNoSecret(refresh.body, listed.body, answer.body, JSON.stringify(job), JSON.stringify(lines), JSON.stringify(await logOf(s, first)))
  })

  it('cancels a queued job at once; a library that never finished is then failed with cancelled, and adding it again retries it', async () => {
    const s = await setup()
    s.git.hold = true
    const running = jobIdOf(await add(s, 'thing'))
    await heldRunning(s, running)
    const queued = jobIdOf(await add(s, 'other'))

    const list = (await get(s, '/api/jobs')).json<{ jobs: JobView[] }>().jobs
    expect(list.map((j) => [j.id, j.state, j.position])).toEqual([[queued, 'queued', 1], [running, 'running', null]])
    expect(list[0]).toMatchObject({ libraryId: '/acme/other', startedAt: null, elapsedMs: null, attempts: 0 })
    expect((await get(s, '/api/jobs?state=running')).json<{ jobs: JobView[] }>().jobs.map((j) => j.id)).toEqual([running])
    expect((await get(s, '/api/jobs?state=succeeded,failed')).json()).toEqual({ jobs: [] })

    const answer = await cancel(s, queued)
    expect(answer.statusCode, answer.body).toBe(200)
    expect(answer.json()).toMatchObject({ id: queued, state: 'failed', errorCode: 'cancelled', position: null, elapsedMs: null, startedAt: null, finishedAt: expect.any(String) })
    expect(answer.json<JobView>().errorMessage).toBe(`Job ${queued} was cancelled while queued; refresh the library, or add it again, to run it anew.`)
    expect(await logOf(s, queued)).toEqual([{ id: expect.any(Number), time: expect.any(String), level: 'warn', message: 'job cancelled while queued', fields: { by: expect.stringMatching(/^admin /) } }])
    const other = (await s.app.runtime.store.libraries.byId('/acme/other'))!
    expect(await s.app.runtime.store.libraries.version(other.pk, '')).toMatchObject({ state: 'error', errorCode: 'cancelled', currentSet: null })
    const context = await s.app.inject({ url: '/api/v2/context?libraryId=/acme/other&query=install' })
    expect(context.statusCode).toBe(409)
    expect(context.json()).toEqual({ error: 'cancelled', message: answer.json<JobView>().errorMessage })
    // The running job goes on.
    expect((await jobOf(s, running)).state).toBe('running')

    // Cancelled while running, a first ingest leaves nothing to serve: failed as cancelled.
    expect((await cancel(s, running)).statusCode).toBe(200)
    expect(await ended(s, running)).toMatchObject({ state: 'failed', errorCode: 'cancelled' })
    expect(await s.app.runtime.store.libraries.version((await s.app.runtime.store.libraries.byId('/acme/thing'))!.pk, '')).toMatchObject({ state: 'error', errorCode: 'cancelled', currentSet: null })

    s.git.hold = false
    const retried = await add(s, 'other')
    expect(retried.statusCode, retried.body).toBe(200)
    expect((await waitForLibrary(s.app, '/acme/other')).state).toBe('finalized')
    expect((await s.app.inject({ url: '/api/v2/context?libraryId=/acme/other&query=install' })).statusCode).toBe(200)
    const all = (await get(s, '/api/jobs?limit=2')).json<{ jobs: JobView[] }>().jobs
    expect(all.map((j) => [j.id, j.state])).toEqual([[jobIdOf(retried), 'succeeded'], [queued, 'failed']])
  })

  it('a job whose process died after its cancel was asked ends as cancelled at the next start: it never runs again, its clone goes, its library keeps its set', async () => {
    const base = await tmpDir()
    await makeGitRepo(THING, { parent: base, name: 'thing' })
    redirectGitHub(base)
    const dataDir = await tmpDataDir()
    const first = await buildTestApp({ dataDir, startWorker: false, defer: () => {} })
    const key = await createKey(first)
    await addRepo(first, key, 'https://github.com/acme/thing')
    await first.runtime.worker.drain()
    // What a process killed during a refresh leaves, with a cancel asked meanwhile (to another process).
    const refresh = await first.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${key}` }, payload: { libraryName: '/acme/thing', force: true } })
    const claimed = (await first.runtime.store.jobs.claimNext(testClaimer))!
    expect(claimed.pk).toBe(refresh.json().jobId)
    await first.runtime.store.libraries.setVersionState(claimed.versionPk!, 'processing')
    await mkdir(jobWorkDir(first.runtime.store.paths, claimed.pk), { recursive: true })
    const answer = await first.inject({ method: 'POST', url: `/api/jobs/${claimed.pk}/cancel`, headers: { cookie: await sessionCookie(first, 'admin') } })
    expect(answer.json()).toMatchObject({ state: 'running', cancelRequestedAt: expect.any(String) })
    await first.close()

    const second = await buildTestApp({ dataDir })
    expect(await second.runtime.store.jobs.byPk(claimed.pk)).toMatchObject({ state: 'failed', errorCode: 'cancelled', attempts: 1 })
    expect(await second.runtime.store.libraries.versionByPk(claimed.versionPk!)).toMatchObject({ state: 'finalized', errorCode: 'cancelled', currentSet: expect.any(Number) })
    await pollUntil('the clone of the cancelled job to go', () => (existsSync(jobWorkDir(second.runtime.store.paths, claimed.pk)) ? undefined : true))
    expect((await second.inject({ url: '/api/v2/context?libraryId=/acme/thing&query=install' })).statusCode).toBe(200)
  })

  it('keeps each job\'s log lines, newest 500, pages them with after, and never keeps a token, even one a git host echoes', async () => {
    // 520 symlinks: the discovery logs a line for each one it skips.
    const links = Object.fromEntries(Array.from({ length: 520 }, (_, i) => [`docs/link-${String(i).padStart(3, '0')}.md`, symlinkTo('../README.md')]))
    const s = await setup({ thing: { ...THING, ...links } })
    const id = jobIdOf(await add(s, 'thing'))
    expect((await waitForLibrary(s.app, '/acme/thing')).state).toBe('finalized')
    const lines = await logOf(s, id)
    expect(lines).toHaveLength(500)
    // The oldest were dropped; the last is the job's end.
    expect(lines[0].message).not.toBe('job started')
    expect(lines.at(-1)).toMatchObject({ level: 'info', message: 'job succeeded', fields: { ms: expect.any(Number) } })
    expect(lines.some((l) => /^skipped docs\/link-519\.md: symlink$/.test(l.message))).toBe(true)
    expect(await logOf(s, id, lines[497].id)).toEqual(lines.slice(498))
    expect(await logOf(s, id, lines.at(-1)!.id)).toEqual([])

    // The host answers with the token and the Authorization header in its error.
    const failed = await s.app.inject({ method: 'POST', url: '/api/v2/add/repo/github', headers: { authorization: `Bearer ${s.key}` }, payload: { docsRepoUrl: 'https://github.com/echo/thing', gitToken: GIT_TOKEN } })
    const failedId = jobIdOf(failed)
    const job = await ended(s, failedId)
    expect(job).toMatchObject({ state: 'failed', errorCode: 'source_unreachable' })
    const failedLines = await logOf(s, failedId)
    expect(failedLines.at(-1)).toMatchObject({ level: 'warn', message: 'job failed', fields: { code: 'source_unreachable', reason: expect.stringContaining('[REDACTED]') } })
    expectNoSecret(JSON.stringify(job), JSON.stringify(failedLines), (await get(s, '/api/jobs?limit=500')).body)
    // Nor in the database: the job's row and its lines.
    const stored = JSON.stringify(sqliteOf(s.app.runtime.store).prepare('SELECT * FROM job_logs').all()) + JSON.stringify(sqliteOf(s.app.runtime.store).prepare('SELECT * FROM jobs').all())
    expect(stored).not.toContain(GIT_TOKEN)
    expect(stored).not.toContain(GIT_BASIC)
  })
})
