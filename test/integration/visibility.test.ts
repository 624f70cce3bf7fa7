/**
 * A private library does not exist for a caller without access, on every path: whatever state it
 * is in (a pinned tag it lacks, in progress, failed, renamed), an anonymous caller gets exactly
 * the status and bytes a truly unknown ID gets, in REST, MCP and parse-status alike. A keyed
 * caller, an admin session and the CLI on the data directory get the real answer.
 *
 * Parse-status also never shows outsiders raw failure text, clone URLs, server paths or progress
 * lines; insiders get the reasons with credentials redacted.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { renameLibrary } from '../../src/library/admin.js'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { mcpStdio } from '../helpers/cli.js'
import { signIn } from '../helpers/session.js'
import { bearer, createTenants } from '../helpers/tenants.js'
import { suiteTeardown } from '../helpers/tmp.js'
import { sqlOf } from '../../src/store/index.js'
import { testClaimer, heldByTest } from '../helpers/jobs.js'

// The stdio MCP step spawns the CLI; on a loaded two-core machine a spawn can take seconds.
vi.setConfig({ testTimeout: 60_000 })

const defer = suiteTeardown()
const DOCS = { 'docs/deploy.md': '# Deploy\n\n## Release\n\nRelease the billing service with the deploy script and a release tag.\n\n```bash\n./deploy.sh v1\n```\n' }
/** An ID no library has ever had, standing in for each hidden one. */
const UNKNOWN = '/acme/nosuch'
const CLONE_URL = 'https://git.internal.example/acme/broken.git'
let app: FastifyInstance
let key: string
let cookie: string

async function makePrivate(id: string): Promise<void> {
  await sqlOf(app.runtime.store).run('UPDATE libraries SET is_private = TRUE WHERE id = ?', [id])
}

beforeAll(async () => {
  app = await buildTestApp({ defer, startWorker: false })
  key = await createKey(app)
  const { store } = app.runtime
  // Finalized, with a version: pinned tags it lacks must not list its versions.
  await seedLibrary(app, '/acme/secret', DOCS)
  await seedLibrary(app, '/acme/secret', DOCS, 'v1.0.0')
  await makePrivate('/acme/secret')
  // In progress: its job is queued.
  const queued = await store.libraries.create({ id: '/acme/queued', title: 'queued', sourceKind: 'github', sourceUrl: 'https://github.com/acme/queued', isPrivate: true })
  await store.jobs.enqueue({ kind: 'ingest', libraryPk: queued.library.pk, versionPk: queued.version.pk, payload: {} })
  // Failed: its job failed with a raw reason naming the clone URL and a server path.
  const broken = await store.libraries.create({ id: '/acme/broken', title: 'broken', sourceKind: 'git', sourceUrl: CLONE_URL, isPrivate: true })
  const job = await store.jobs.enqueue({ kind: 'ingest', libraryPk: broken.library.pk, versionPk: broken.version.pk, payload: {} })
  await store.jobs.claimNext(testClaimer)
  const reason = `git clone of ${CLONE_URL} failed: could not create work tree dir '/var/lib/lectern/repos/job-${job.pk}'`
  await store.jobs.fail(job, 'source_unreachable', reason)
  await store.libraries.setVersionState(broken.version.pk, 'error', { code: 'source_unreachable', message: reason })
  // Renamed: the old ID redirects to a private library.
  await seedLibrary(app, '/acme/moved', DOCS)
  await renameLibrary(store, '/acme/moved', '/acme/moved-on')
  await makePrivate('/acme/moved-on')
  cookie = await loginAdmin(app)
})

/** An admin session cookie, as the dashboard gets it. */
async function loginAdmin(target: FastifyInstance): Promise<string> {
  await target.runtime.store.users.create({ email: 'admin@example.com', password: 'correct horse battery' })
  const login = await target.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'admin@example.com', password: 'correct horse battery' } })
  expect(login.statusCode).toBe(200)
  return String(login.headers['set-cookie']).split(';')[0]
}

const keyed = () => ({ authorization: `Bearer ${key}` })

/** The response for a hidden ID must be the unknown ID's response, byte for byte but for the ID. */
async function expectLikeUnknown(hiddenId: string, send: (id: string) => Promise<LightMyRequestResponse>, suffix = ''): Promise<void> {
  const hidden = await send(hiddenId + suffix)
  const unknown = await send(UNKNOWN + suffix)
  expect(hidden.statusCode).toBe(unknown.statusCode)
  expect(hidden.headers['content-type']).toBe(unknown.headers['content-type'])
  expect(hidden.body).toBe(unknown.body.replaceAll(UNKNOWN, hiddenId))
}

const context = (libraryId: string, headers: Record<string, string> = {}) =>
  app.inject({ url: '/api/v2/context', query: { libraryId, query: 'release' }, headers })

describe('/v2/context', () => {
  it.each([
    ['a pinned tag it lacks', '/acme/secret', '@v9.9.9', 404, 'tag_not_found'],
    ['in progress', '/acme/queued', '', 202, 'library_not_finalized'],
    ['failed', '/acme/broken', '', 500, 'source_unreachable'],
    ['renamed', '/acme/moved', '', 301, 'library_redirected'],
    ['finalized', '/acme/secret', '', 200, undefined],
  ])('%s: anonymous callers get the unknown ID answer; keyed callers and admin sessions the real one', async (_, id, suffix, status, error) => {
    await expectLikeUnknown(id, (libraryId) => context(libraryId), suffix)
    expect((await context(UNKNOWN + suffix)).json().error).toBe('library_not_found')
    for (const insider of [keyed(), { cookie }]) {
      const res = await context(id + suffix, insider)
      expect(res.statusCode, res.body).toBe(status)
      if (error) expect(res.json().error).toBe(error)
    }
  })

  it('a keyed caller sees the real tag list and redirect', async () => {
    expect((await context('/acme/secret@v9.9.9', keyed())).json().message).toContain('Available versions: v1.0.0')
    expect((await context('/acme/moved', keyed())).json().redirectUrl).toBe('/acme/moved-on')
  })
})

describe('search', () => {
  it.each(['/acme/secret', 'secret', 'broken', 'queued'])('"%s" finds nothing for anonymous callers and the library for keyed ones', async (name) => {
    const anonymous = await app.inject({ url: '/api/v2/libs/search', query: { libraryName: name } })
    expect(anonymous.statusCode).toBe(404)
    expect(anonymous.json()).toEqual({ error: 'no_libraries_found', message: `No libraries found matching "${name}".` })
    const found = await app.inject({ url: '/api/v2/libs/search', query: { libraryName: name }, headers: keyed() })
    expect(found.json().results[0].id).toBe(name.startsWith('/') ? name : `/acme/${name}`)
  })
})

describe('MCP', () => {
  let anonymous: Client
  let withKey: Client

  beforeAll(async () => {
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    anonymous = new Client({ name: 'lectern-test', version: '1.0.0' })
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
    withKey = new Client({ name: 'lectern-test', version: '1.0.0' })
    await withKey.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: keyed() } }))
    defer(async () => {
      await anonymous.close()
      await withKey.close()
    })
  })

  type ToolResult = { content: Array<{ text: string }>; isError?: boolean }
  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult

  it.each([
    ['/acme/secret', '@v9.9.9'],
    ['/acme/queued', ''],
    ['/acme/broken', ''],
    ['/acme/moved', ''],
    ['/acme/secret', ''],
  ])('query-docs on %s%s answers anonymous callers as for an unknown ID', async (id, suffix) => {
    const hidden = await call(anonymous, 'query-docs', { libraryId: id + suffix, query: 'release' })
    const unknown = await call(anonymous, 'query-docs', { libraryId: UNKNOWN + suffix, query: 'release' })
    expect(hidden).toEqual({ ...unknown, content: unknown.content.map((c) => ({ ...c, text: c.text.replaceAll(UNKNOWN, id) })) })
    expect(unknown.content[0].text).toMatch(/not found/)
    expect((await call(withKey, 'query-docs', { libraryId: id + suffix, query: 'release' })).content[0].text).not.toMatch(/not found\. Search/)
  })

  it('resolve-library-id finds nothing for anonymous callers and the library for keyed ones', async () => {
    const hidden = await call(anonymous, 'resolve-library-id', { libraryName: 'secret' })
    expect(hidden.isError).toBe(true)
    expect(hidden.content[0].text).toBe('No libraries found matching "secret".')
    expect((await call(withKey, 'resolve-library-id', { libraryName: 'secret' })).content[0].text).toContain('- Library ID: /acme/secret')
  })

  it('over stdio, the CLI on the data directory sees private libraries', async () => {
    const client = new Client({ name: 'lectern-test', version: '1.0.0' })
    const dataDir = app.lecternOptions.config.dataDir
    await client.connect(mcpStdio(dataDir))
    try {
      const answer = await call(client, 'query-docs', { libraryId: '/acme/secret', query: 'release' })
      expect(answer.isError).toBeFalsy()
      expect(answer.content[0].text).toContain('./deploy.sh v1')
    } finally {
      await client.close()
    }
  })
})

describe('/api/parse-status', () => {
  it('shows anonymous callers nothing of private libraries: the same bytes as without them', async () => {
    const anonymous = await app.inject({ url: '/api/parse-status' })
    expect(anonymous.statusCode).toBe(200)
    expect(anonymous.json()).toEqual({ activeParses: {}, recentFailures: [] })
    const insider = (await app.inject({ url: '/api/parse-status', headers: keyed() })).json()
    expect(Object.keys(insider.activeParses)).toEqual(['/acme/queued'])
    expect(insider.recentFailures.map((f: { project: string }) => f.project)).toEqual(['/acme/broken'])
  })

  it('shows anonymous callers a public failure as its code and summary, insiders the reason with credentials redacted, and progress to insiders only', async () => {
    const open = await buildTestApp({ startWorker: false })
    const { store } = open.runtime
    const openKey = await createKey(open)
    const { library, version } = await store.libraries.create({ id: '/acme/open', title: 'open', sourceKind: 'git', sourceUrl: 'https://git.internal.example/acme/open.git' })
    const failed = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk, payload: {} })
    await store.jobs.claimNext(testClaimer)
    await store.jobs.fail(heldByTest(failed.pk), 'source_unreachable', 'git ls-remote of https://deploy:hunter2-token@git.internal.example/acme/open.git failed: not found at /srv/git/acme/open.git')
    const running = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk, payload: {} })
    await store.jobs.claimNext(testClaimer)
    await store.jobs.setStatus(running.pk, 'cloning https://git.internal.example/acme/open.git into /var/lib/lectern/repos')

    const anonymous = await open.inject({ url: '/api/parse-status' })
    expect(anonymous.json()).toEqual({
      activeParses: { '/acme/open': { jobId: running.pk, kind: 'ingest', status: 'parsing', startedAt: expect.any(String), duration: expect.any(Number) } },
      recentFailures: [
        { project: '/acme/open', jobId: failed.pk, kind: 'ingest', error: 'source_unreachable', message: 'The source (git host, URL) could not be read.', finishedAt: expect.any(String) },
      ],
    })
    expect(anonymous.body).not.toMatch(/internal\.example|\/srv\/|\/var\/lib|hunter2|ls-remote/)

    for (const insider of [{ authorization: `Bearer ${openKey}` }, { cookie: await loginAdmin(open) }]) {
      const body = (await open.inject({ url: '/api/parse-status', headers: insider })).json()
      expect(body.recentFailures[0].message).toBe('git ls-remote of https://[REDACTED]@git.internal.example/acme/open.git failed: not found at /srv/git/acme/open.git')
      expect(body.activeParses['/acme/open'].statusMessage).toMatch(/^cloning https:\/\/git\.internal\.example/)
    }
  })
})

describe('/api/parse-status in cloud mode', () => {
  it("gives a teamspace's keys and members its own libraries' reasons and progress, the public libraries' summary only", async () => {
    const cloud = await buildTestApp({ mode: 'cloud', startWorker: false, defer })
    const { store } = cloud.runtime
    const tenants = await createTenants(cloud)
    const REASON = 'git ls-remote of https://deploy:hunter2-token@git.internal.example/acme/%s.git failed: not found at /srv/git/acme/%s.git'
    const jobsOf = async (id: string, teamPk: number | null) => {
      const { library, version } = await store.libraries.create({ id, title: id, sourceKind: 'git', sourceUrl: `https://git.internal.example${id}.git`, isPrivate: teamPk !== null, teamPk })
      const failed = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk, payload: {} })
      await store.jobs.claimNext(testClaimer)
      await store.jobs.fail(heldByTest(failed.pk), 'source_unreachable', REASON.replaceAll('%s', id.split('/')[2]!))
      const running = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk, payload: {} })
      await store.jobs.claimNext(testClaimer)
      await store.jobs.setStatus(running.pk, `cloning https://git.internal.example${id}.git into /var/lib/lectern/repos`)
    }
    const own = `/acme/tools--t${tenants.acme.teamPk}`
    await jobsOf(own, tenants.acme.teamPk)
    await jobsOf('/acme/public', null)
    const statusOf = async (headers: Record<string, string>) => {
      const body = (await cloud.inject({ url: '/api/parse-status', headers })).json()
      const failure = (id: string) => body.recentFailures.find((f: { project: string }) => f.project === id)?.message
      return { failure, progress: (id: string) => body.activeParses[id]?.statusMessage, projects: Object.keys(body.activeParses).sort() }
    }
    const SUMMARY = 'The source (git host, URL) could not be read.'
    const member = await signIn(cloud, 'member', 'dev@acme.example')

    for (const headers of [bearer(tenants.acme.keys.developer), { cookie: `lectern_session=${member.lectern_session}` }]) {
      const seen = await statusOf(headers)
      expect(seen.failure(own)).toBe(`git ls-remote of https://[REDACTED]@git.internal.example${own}.git failed: not found at /srv/git${own}.git`)
      expect(seen.progress(own)).toMatch(/^cloning https:\/\/git\.internal\.example\/acme\/tools/)
      expect(seen.failure('/acme/public')).toBe(SUMMARY)
      expect(seen.progress('/acme/public')).toBeUndefined()
    }
    const other = await statusOf(bearer(tenants.beta.keys.owner))
    expect(other.projects).toEqual(['/acme/public'])
    expect([other.failure('/acme/public'), other.progress('/acme/public')]).toEqual([SUMMARY, undefined])
    const operator = await statusOf(bearer(await createKey(cloud, 'ops')))
    expect(operator.projects).toEqual(['/acme/public', own].sort())
    expect(operator.failure('/acme/public')).toContain('[REDACTED]@git.internal.example/acme/public.git')
    expect(operator.progress('/acme/public')).toMatch(/^cloning /)
  })
})

describe('refresh', () => {
  it('needs a key, so anonymous callers are refused alike; a keyed caller refreshes a private library', async () => {
    const refresh = (libraryName: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url: '/api/v1/refresh', headers, payload: { libraryName } })
    await expectLikeUnknown('/acme/secret', (id) => refresh(id))
    expect((await refresh('/acme/secret')).statusCode).toBe(401)
    const queued = await refresh('/acme/secret', keyed())
    expect(queued.statusCode, queued.body).toBe(200)
    expect(queued.json().libraryName).toBe('/acme/secret')
  })
})
