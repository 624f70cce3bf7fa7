/**
 * In cloud mode git sources pass the same private-address guard as HTTP sources, through the
 * interfaces a tenant touches: the add and refresh endpoints refuse a remote that is not http(s)
 * (400) or that resolves to a private address (403) before anything is stored; a job checks
 * again (the install's DNS or settings may have changed since); a redirect is not followed; and
 * `lectern versions add` asks the remote only behind the guard. Hosts in fetch.allow
 * (LECTERN_FETCH_ALLOW) work end to end, and on-premise nothing changes.
 * The remote is a real git server (`git http-backend`) on 127.0.0.1.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Job } from '../../src/store/jobs.js'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { git, makeGitRepo } from '../helpers/git.js'
import { startGitServer, type GitServer } from '../helpers/git-server.js'
import { pollUntil } from '../helpers/poll.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

const defer = suiteTeardown()
const GUIDE = { 'docs/guide.md': '# Guide\n\n## Render a widget\n\nMount a widget into an element:\n\n```js\nrender(el, { kind: "gauge" })\n```\n' }
let server: GitServer
/** `http://127.0.0.1:<port>/acme/widgets`: a loopback address. */
let byAddress: string
/** The same repository by a name that resolves to loopback. */
let byName: string

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  const repo = await makeGitRepo(GUIDE, { parent: path.join(remotes, 'acme'), name: 'widgets', defer })
  await git(['tag', 'v1.0.0'], repo.dir)
  server = await startGitServer(remotes, {
    defer,
    // A moved repository: a redirect to the same server under a name fetch.allow does not list.
    route: (_req, res, url) => {
      if (!url.pathname.startsWith('/moved/')) return url.pathname
      res.writeHead(301, { location: `http://localhost:${server.port}${url.pathname.slice('/moved'.length)}${url.search}` }).end()
      return undefined
    },
  })
  byAddress = `${server.url}/acme/widgets`
  byName = byAddress.replace('127.0.0.1', 'localhost')
})

async function cloudApp(allow: string[] = [], dataDir?: string): Promise<{ app: FastifyInstance; key: string }> {
  const app = await buildTestApp({ mode: 'cloud', fetch: { allow }, ...(dataDir ? { dataDir } : {}) })
  return { app, key: await createKey(app) }
}

const addGit = (app: FastifyInstance, key: string, docsRepoUrl: string, host = 'git') =>
  app.inject({ method: 'POST', url: `/api/v2/add/repo/${host}`, headers: { authorization: `Bearer ${key}` }, payload: { docsRepoUrl } })

const refresh = (app: FastifyInstance, key: string, libraryName: string) =>
  app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${key}` }, payload: { libraryName, force: true } })

const waitForJob = (app: FastifyInstance, pk: number): Promise<Job> =>
  pollUntil(`job ${pk} to end`, async () => {
    const job = await app.runtime.store.jobs.byPk(pk)
    return job?.state === 'failed' || job?.state === 'succeeded' ? job : undefined
  })

/** Requests the git server got from now on. */
function requestsFrom(): () => GitServer['requests'] {
  const start = server.requests.length
  return () => server.requests.slice(start)
}

describe('cloud mode refuses at submission', () => {
  it.each([
    ['a loopback address', () => byAddress],
    ['a name that resolves to loopback', () => byName],
  ])('403 forbidden for %s, with nothing stored and nothing fetched', async (_, url) => {
    const { app, key } = await cloudApp()
    const seen = requestsFrom()
    const res = await addGit(app, key, url())
    expect(res.statusCode, res.body).toBe(403)
    expect(res.json()).toEqual({ error: 'forbidden', message: expect.stringMatching(/is a private address|resolves to .*, a private address/) })
    expect(res.json().message).toContain('LECTERN_FETCH_ALLOW')
    expect(await app.runtime.store.libraries.list()).toEqual([])
    expect(await app.runtime.store.jobs.list({})).toEqual([])
    expect(seen()).toEqual([])
  })

  it.each([
    ['git', 'ssh://git@git.example.com/acme/widgets.git'],
    ['git', 'git://git.example.com/acme/widgets.git'],
    ['git', 'file:///srv/git/acme/widgets.git'],
    ['git', 'git@git.example.com:acme/widgets.git'],
    ['github', 'git@github.com:acme/widgets.git'],
    ['github', 'ssh://git@github.com/acme/widgets.git'],
  ])('400 validation_error for a %s remote %s', async (host, url) => {
    const { app, key } = await cloudApp(['git.example.com', 'github.com'])
    const res = await addGit(app, key, url, host)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toEqual({ error: 'validation_error', message: expect.stringMatching(/^In cloud mode repositories are cloned over https \(or http\) only/) })
    expect(await app.runtime.store.libraries.list()).toEqual([])
  })
})

describe('hosts in fetch.allow', () => {
  it('an allowed address is cloned and served end to end', async () => {
    const { app, key } = await cloudApp(['127.0.0.1'])
    const res = await addGit(app, key, byAddress)
    expect(res.statusCode, res.body).toBe(200)
    expect(await waitForLibrary(app, '/acme/widgets')).toMatchObject({ state: 'finalized' })
    const context = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query: 'render a widget', type: 'json' } })
    expect(context.statusCode).toBe(200)
    expect(JSON.stringify(context.json())).toContain('render(el')
  })

  it('a name whose addresses an allowed CIDR holds is resolved, checked and cloned', async () => {
    const { app, key } = await cloudApp(['127.0.0.0/8', '::1/128'])
    const seen = requestsFrom()
    expect((await addGit(app, key, byName)).statusCode).toBe(200)
    expect(await waitForLibrary(app, '/acme/widgets')).toMatchObject({ state: 'finalized' })
    expect(seen().length).toBeGreaterThan(0)
    expect(seen().every((r) => r.host === `localhost:${server.port}`)).toBe(true)
  })

  it('a redirect from an allowed host to one that is not allowed is not followed: the job fails, nothing is cloned', async () => {
    const { app, key } = await cloudApp(['127.0.0.1'])
    const seen = requestsFrom()
    expect((await addGit(app, key, `${server.url}/moved/acme/widgets`)).statusCode).toBe(200)
    const version = await waitForLibrary(app, '/moved/widgets')
    expect(version).toMatchObject({ state: 'error', currentSet: null })
    const [job] = await app.runtime.store.jobs.list({})
    expect(job).toMatchObject({ state: 'failed', errorCode: 'source_unreachable', errorMessage: expect.stringMatching(/redirect, which is not followed in cloud mode/) })
    expect(seen().length).toBeGreaterThan(0)
    expect(seen().filter((r) => !r.host.startsWith('127.0.0.1:'))).toEqual([])
    expect(fs.existsSync(app.runtime.store.paths.repos) ? fs.readdirSync(app.runtime.store.paths.repos) : []).toEqual([])
  })
})

describe('an install that switches from on-premise to cloud', () => {
  let dataDir: string
  let refreshJob: number
  let sshJob: number

  beforeAll(async () => {
    dataDir = await tmpDataDir(defer)
    // On-premise a loopback git server is the normal case.
    const onprem = await buildTestApp({ dataDir, defer })
    const onpremKey = await createKey(onprem)
    const added = await addGit(onprem, onpremKey, byAddress)
    expect(added.statusCode, added.body).toBe(200)
    expect(await waitForLibrary(onprem, '/acme/widgets')).toMatchObject({ state: 'finalized' })
    await onprem.close()
    // Jobs queued on-premise, left for the cloud install to run.
    const queuing = await buildTestApp({ dataDir, startWorker: false, defer })
    const queuingKey = await createKey(queuing)
    refreshJob = (await refresh(queuing, queuingKey, '/acme/widgets')).json().jobId
    // On-premise an SSH repository is read through the SSH connection of its host.
    await queuing.runtime.store.connections.create({ teamPk: null }, { kind: 'git', name: 'ssh', baseUrl: 'ssh://git.example.com', token: 'deploy key', knownHosts: 'git.example.com ssh-ed25519 AAAA\n', publicKey: 'ssh-ed25519 AAAA' })
    expect((await addGit(queuing, queuingKey, 'ssh://git@git.example.com/acme/sshlib.git')).statusCode).toBe(200)
    sshJob = (await queuing.runtime.store.jobs.list({})).find((j) => (j.payload.spec as { url?: string } | undefined)?.url === 'ssh://git@git.example.com/acme/sshlib.git')!.pk
    await queuing.close()
  })

  it('the job checks again: a queued job to a private address fails forbidden, one to ssh fails validation_error; the live snippets stay', async () => {
    const seen = requestsFrom()
    const { app, key } = await cloudApp([], dataDir)
    expect(await waitForJob(app, refreshJob)).toMatchObject({ state: 'failed', errorCode: 'forbidden', errorMessage: expect.stringContaining('LECTERN_FETCH_ALLOW') })
    expect(await waitForJob(app, sshJob)).toMatchObject({ state: 'failed', errorCode: 'validation_error' })
    expect(seen()).toEqual([])
    const status = (await app.inject({ url: '/api/parse-status', headers: { authorization: `Bearer ${key}` } })).json()
    expect(status.recentFailures.map((f: { error: string }) => f.error).sort()).toEqual(['forbidden', 'validation_error'])
    const context = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query: 'render a widget' } })
    expect(context.statusCode).toBe(200)

    const refused = await refresh(app, key, '/acme/widgets')
    expect(refused.statusCode, refused.body).toBe(403)
    expect(refused.json()).toMatchObject({ error: 'forbidden' })
    const ssh = await refresh(app, key, '/acme/sshlib')
    expect(ssh.statusCode, ssh.body).toBe(400)
    expect(ssh.json()).toMatchObject({ error: 'validation_error', message: expect.stringMatching(/cloud mode/) })
    expect(await app.runtime.store.jobs.list({ states: ['queued', 'running'] })).toEqual([])
    await app.close()
  })

  it('`lectern versions add` asks the remote only behind the guard', async () => {
    const seen = requestsFrom()
    const env = { LECTERN_DATA_DIR: dataDir, LECTERN_MODE: 'cloud' }
    const refused = await runCli(['versions', 'add', '/acme/widgets', 'v1.0.0'], env)
    expect(refused.exitCode, refused.stderr).toBe(3)
    expect(refused.stderr.replace(/\s+/g, ' ')).toMatch(/127\.0\.0\.1 is a private address; an administrator can allow it with LECTERN_FETCH_ALLOW/)
    expect(seen()).toEqual([])

    const allowed = await runCli(['versions', 'add', '/acme/widgets', 'v1.0.0', '--json'], { ...env, LECTERN_FETCH_ALLOW: '127.0.0.1' })
    expect(allowed.exitCode, allowed.stderr).toBe(0)
    expect(JSON.parse(allowed.stdout)).toMatchObject({ libraryId: '/acme/widgets@v1.0.0' })
    expect(seen().length).toBeGreaterThan(0)
  })
})
