/**
 * Cloud mode: private libraries belong to the teamspace whose key added them, through the add
 * endpoints a tenant calls. Owners and admins of a paying teamspace may add them (developers and
 * free plans get 403 forbidden), the same one twice is 409 duplicate_repo, and every other tenant
 * meets them exactly as an unknown library: search, context, refresh, parse-status, MCP, export.
 * The install's stored connections are the operator's alone: a tenant's add never reads with them
 * (a teamspace's own connections are test/integration/team-connections.test.ts).
 * The private repository is a real git server (`git http-backend`) on 127.0.0.1, over https with
 * a certificate of a CA made for the run (a token goes only over https in the cloud), that refuses
 * clones without the token; Confluence and Notion, which cannot run here, are loopback STAND-INS
 * speaking the subset of their APIs Lectern reads (test/helpers/workspace-standins.ts).
 */
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { LOCAL } from '../../src/library/access.js'
import { refreshLibrary } from '../../src/jobs/library-jobs.js'
import { issueLicense } from '../../src/license/issue.js'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo } from '../helpers/git.js'
import { startGitServer } from '../helpers/git-server.js'
import { pollUntil } from '../helpers/poll.js'
import { signIn } from '../helpers/session.js'
import { confluenceStandIn, notionStandIn, textBlock, type StandIn } from '../helpers/workspace-standins.js'
import { bearer, createTenants, type Tenants } from '../helpers/tenants.js'
import { gitTrustedCertificate } from '../helpers/tls.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'
import { sqliteOf } from '../../src/store/index.js'

const defer = suiteTeardown()
const TOKEN = 'ghp_private_widgets_token'
const DOCS = { 'docs/guide.md': '# Guide\n\n## Mount a widget\n\nMount a widget into an element with render:\n\n```js\nrender(el, { kind: "gauge" })\n```\n' }

let app: FastifyInstance
let base: string
let tenants: Tenants
let privateUrl: string
let publicUrl: string
let gitServer: string
/** The library Acme's owner added privately. */
let acmeLibrary: string
/** Credentials the git server was sent for acme/vault, which only the install's stored connection holds. */
const vaultAuthorizations: string[] = []

const addGit = (key: string, docsRepoUrl: string, extra: Record<string, unknown> = {}) =>
  app.inject({ method: 'POST', url: '/api/v2/add/repo/git', headers: bearer(key), payload: { docsRepoUrl, ...extra } })

const getJson = (url: string, key?: string) => app.inject({ url, headers: key ? bearer(key) : {} })

const waitForJobEnd = (pk: number) =>
  pollUntil(`job ${pk} to end`, async () => {
    const state = (await app.runtime.store.jobs.byPk(pk))?.state
    return state === 'succeeded' || state === 'failed' ? state : undefined
  })

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(DOCS, { parent: path.join(remotes, 'acme'), name: 'widgets', defer })
  await makeGitRepo(DOCS, { parent: path.join(remotes, 'acme'), name: 'open', defer })
  await makeGitRepo(DOCS, { parent: path.join(remotes, 'acme'), name: 'vault', defer })
  await makeGitRepo(DOCS, { parent: path.join(remotes, 'acme'), name: 'ledger', defer })
  await makeGitRepo(DOCS, { parent: path.join(remotes, 'acme'), name: 'strongbox', defer })
  await makeGitRepo(DOCS, { parent: path.join(remotes, 'acme'), name: 'shared', defer })
  // Over https: in cloud mode a token goes only over https.
  const tls = await gitTrustedCertificate(remotes, defer)
  const expected = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`
  const server = await startGitServer(remotes, {
    defer,
    tls,
    // acme/widgets, vault, ledger and strongbox are private: without the token the host answers as GitHub does, 401.
    route: (req, res, url) => {
      if (url.pathname.startsWith('/acme/vault') && req.headers.authorization !== undefined) vaultAuthorizations.push(req.headers.authorization)
      if (/^\/acme\/(widgets|vault|ledger|strongbox)/.test(url.pathname) && req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end()
        return undefined
      }
      return url.pathname
    },
  })
  gitServer = server.url
  privateUrl = `${server.url}/acme/widgets`
  publicUrl = `${server.url}/acme/open`
  app = await buildTestApp({ mode: 'cloud', fetch: { allow: ['127.0.0.1'] }, defer })
  await app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  tenants = await createTenants(app)

  const added = await addGit(tenants.acme.keys.owner, privateUrl, { gitToken: TOKEN })
  expect(added.statusCode, added.body).toBe(200)
  acmeLibrary = added.json().libraryName
  expect((await waitForLibrary(app, acmeLibrary)).state).toBe('finalized')
})

describe('adding a private repository', () => {
  it("belongs to the owner's teamspace, under an ID that carries the teamspace", async () => {
    expect(acmeLibrary).toBe(`/acme/widgets--t${tenants.acme.teamPk}`)
    expect(await app.runtime.store.libraries.byId(acmeLibrary)).toMatchObject({ isPrivate: true, teamPk: tenants.acme.teamPk })
    expect(await app.runtime.store.libraries.byId('/acme/widgets')).toBeUndefined()
  })

  it('is 409 duplicate_repo the second time in the same teamspace, from any manager', async () => {
    const again = await addGit(tenants.acme.keys.admin, privateUrl, { gitToken: TOKEN })
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ error: 'duplicate_repo' })
  })

  it('is 403 forbidden for a developer, with nothing stored', async () => {
    const before = (await app.runtime.store.libraries.list()).length
    const res = await addGit(tenants.beta.keys.developer, privateUrl, { gitToken: TOKEN })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'forbidden', message: 'Only team owners and admins may add private repositories.' })
    expect(await app.runtime.store.libraries.list()).toHaveLength(before)
  })

  it('is 403 forbidden on the free plan, with nothing stored', async () => {
    const before = (await app.runtime.store.libraries.list()).length
    for (const payload of [{ gitToken: TOKEN }, { private: true }]) {
      const res = await addGit(tenants.solo.keys.owner, privateUrl, payload)
      expect(res.statusCode).toBe(403)
      expect(res.json()).toEqual({ error: 'forbidden', message: 'Private repositories need a pro or team plan.' })
    }
    expect(await app.runtime.store.libraries.list()).toHaveLength(before)
  })

  it('is 403 forbidden for a developer uploading an OpenAPI file, which is private by nature', async () => {
    const form = new FormData()
    form.set('openapiFile', new Blob(['openapi: 3.0.0\ninfo: { title: Pets, version: "1" }\npaths: {}\n']), 'pets.yaml')
    const res = await fetch(`${base}/api/v2/add/openapi-upload`, { method: 'POST', headers: bearer(tenants.acme.keys.developer), body: form })
    expect(res.status).toBe(403)
    expect(await res.json()).toMatchObject({ error: 'forbidden' })
  })

  it("stores an admin's upload as the teamspace's own library", async () => {
    const form = new FormData()
    form.set('openapiFile', new Blob(['openapi: 3.0.0\ninfo: { title: Pets, version: "1" }\npaths: {}\n']), 'pets.yaml')
    const res = await fetch(`${base}/api/v2/add/openapi-upload`, { method: 'POST', headers: bearer(tenants.acme.keys.admin), body: form })
    expect(res.status).toBe(200)
    const { libraryName } = (await res.json()) as { libraryName: string }
    expect(libraryName).toBe(`/docs/pets--t${tenants.acme.teamPk}`)
    expect(await app.runtime.store.libraries.byId(libraryName)).toMatchObject({ isPrivate: true, teamPk: tenants.acme.teamPk })
  })

  it('gives another teamspace its own library of the same repository, revealing nothing of the first', async () => {
    const res = await addGit(tenants.beta.keys.owner, privateUrl, { gitToken: TOKEN })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().libraryName).toBe(`/acme/widgets--t${tenants.beta.teamPk}`)
    expect(res.body).not.toContain(`--t${tenants.acme.teamPk}`)
    expect(await app.runtime.store.libraries.byId(res.json().libraryName)).toMatchObject({ teamPk: tenants.beta.teamPk })
  })

  it('keeps a repository added without credentials public and shared, and refuses a public ID of the private form', async () => {
    const res = await addGit(tenants.acme.keys.developer, publicUrl)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().libraryName).toBe('/acme/open')
    expect(await app.runtime.store.libraries.byId('/acme/open')).toMatchObject({ isPrivate: false, teamPk: null })
    expect((await waitForLibrary(app, '/acme/open')).state).toBe('finalized')
    const search = await getJson('/api/v2/libs/search?libraryName=open', tenants.beta.keys.developer)
    expect(search.json().results.map((r: { id: string }) => r.id)).toContain('/acme/open')

    const reserved = await addGit(tenants.acme.keys.owner, `${publicUrl}--t${tenants.beta.teamPk}`)
    expect(reserved.statusCode).toBe(400)
    expect(reserved.json()).toMatchObject({ error: 'validation_error' })
  })
})

describe('what a library serves is changed by the operator and its own managers only', () => {
  const refresh = (key: string, libraryName: string, extra: Record<string, unknown> = {}) =>
    app.inject({ method: 'POST', url: '/api/v1/refresh', headers: bearer(key), payload: { libraryName, ...extra } })
  const jobsOf = async (libraryId: string) => {
    const library = (await app.runtime.store.libraries.byId(libraryId))!
    return (await app.runtime.store.jobs.list({ limit: 1000 })).filter((j) => j.libraryPk === library.pk).length
  }
  /** Lets time pass for the rate limit: the version's last job was queued 11 minutes ago. */
  const ageLastJob = async (libraryId: string) => {
    const { store } = app.runtime
    const version = (await store.libraries.version((await store.libraries.byId(libraryId))!.pk, ''))!
    const last = (await store.jobs.latestForVersion(version.pk))!
    sqliteOf(store).prepare('UPDATE jobs SET created_at = ? WHERE pk = ?').run(new Date(Date.now() - 11 * 60_000).toISOString(), last.pk)
  }

  it("refuses a tenant's branch or force on a shared library, on any plan, and rate-limits its plain refresh", async () => {
    const added = await addGit(tenants.solo.keys.owner, `${gitServer}/acme/shared`)
    expect(added.statusCode, added.body).toBe(200)
    const id = added.json().libraryName as string
    expect(id).toBe('/acme/shared')
    expect((await waitForLibrary(app, id)).state).toBe('finalized')
    await ageLastJob(id)
    const branch = (await app.runtime.store.libraries.byId(id))!.branch
    const before = await jobsOf(id)
    for (const key of [tenants.solo.keys.owner, tenants.beta.keys.owner, tenants.acme.keys.owner]) {
      for (const extra of [{ branch: 'evil', force: true }, { branch: 'evil' }, { force: true }]) {
        const res = await refresh(key, id, extra)
        expect(res.statusCode, res.body).toBe(403)
        expect(res.json()).toMatchObject({ error: 'forbidden', message: expect.stringMatching(/^Only the operator may (change the branch|force a rebuild) of \/acme\/shared; refresh it without "branch" and "force" to re-ingest it as it is configured\.$/) })
      }
    }
    expect(await jobsOf(id)).toBe(before)
    expect((await app.runtime.store.libraries.byId(id))!.branch).toBe(branch)

    // Its own branch is the library as configured; the add above was its last job, 11 minutes ago.
    const asConfigured = await refresh(tenants.solo.keys.owner, id, { branch })
    expect(asConfigured.statusCode, asConfigured.body).toBe(200)
    await waitForJobEnd(asConfigured.json().jobId)
    expect((await app.runtime.store.libraries.byId(id))!.branch).toBe(branch)
    const tooSoon = await refresh(tenants.beta.keys.developer, id)
    expect(tooSoon.statusCode, tooSoon.body).toBe(429)
    expect(tooSoon.json()).toMatchObject({ error: 'rate_limit_exceeded', message: expect.stringMatching(/^\/acme\/shared was refreshed less than 10 minutes ago; retry in \d+ s\.$/) })
    expect(Number(tooSoon.headers['retry-after'])).toBeGreaterThan(0)
    await ageLastJob(id)
    const later = await refresh(tenants.beta.keys.developer, id)
    expect(later.statusCode, later.body).toBe(200)
    await waitForJobEnd(later.json().jobId)

    // The operator's key changes what it serves, at once (no rate limit).
    const forced = await refresh(await createKey(app, 'ops'), id, { force: true, branch })
    expect(forced.statusCode, forced.body).toBe(200)
    await waitForJobEnd(forced.json().jobId)
  })

  it("lets a teamspace's owners and admins force its own library, not its developers", async () => {
    const developer = await refresh(tenants.acme.keys.developer, acmeLibrary, { force: true })
    expect(developer.statusCode, developer.body).toBe(403)
    expect(developer.json().message).toMatch(/^Only the operator and the teamspace's owners and admins may force a rebuild of /)
    for (const key of [tenants.acme.keys.admin, tenants.acme.keys.owner]) {
      const res = await refresh(key, acmeLibrary, { force: true, gitToken: TOKEN })
      expect(res.statusCode, res.body).toBe(200)
      expect(await waitForJobEnd(res.json().jobId)).toBe('succeeded')
    }
  })
})

describe('a token over plain http', () => {
  const plainUrl = () => gitServer.replace('https://', 'http://')
  const refusal = { error: 'validation_error', message: 'A token is sent only over https: use the https:// URL of the repository.' }

  it('is refused at add with 400 validation_error, nothing stored, whoever adds', async () => {
    const before = (await app.runtime.store.libraries.list()).length
    for (const key of [tenants.acme.keys.owner, await createKey(app, 'ops')]) {
      const res = await addGit(key, `${plainUrl()}/acme/vault`, { gitToken: TOKEN })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual(refusal)
    }
    expect(await app.runtime.store.libraries.list()).toHaveLength(before)
  })

  it("is refused at refresh, and for a host whose stored git connection would send its token", async () => {
    const { store } = app.runtime
    await store.libraries.create({ id: '/acme/plain', title: 'plain', sourceKind: 'git', sourceUrl: `${plainUrl()}/acme/plain`, isPrivate: true })
    const refresh = async (payload: Record<string, unknown>) =>
      app.inject({ method: 'POST', url: '/api/v1/refresh', headers: bearer(await createKey(app, 'ops')), payload: { libraryName: '/acme/plain', ...payload } })
    const withToken = await refresh({ gitToken: TOKEN })
    expect(withToken.statusCode).toBe(400)
    expect(withToken.json()).toEqual(refusal)

    await store.connections.create(INSTALL_CONNECTIONS, { kind: 'git', name: 'plain-host', baseUrl: plainUrl(), token: TOKEN })
    try {
      const viaConnection = await refresh({})
      expect(viaConnection.statusCode).toBe(400)
      expect(viaConnection.json()).toEqual(refusal)
      const added = await addGit(await createKey(app, 'ops'), `${plainUrl()}/acme/other`)
      expect(added.statusCode).toBe(400)
      expect(added.json()).toEqual(refusal)
      // A version (the operator's dashboard) checks the remote's tag with the connection's token.
      const version = await app.inject({ method: 'POST', url: '/api/libraries/acme/plain/versions', cookies: await signIn(app), payload: { tag: 'v1.0.0' } })
      expect(version.statusCode).toBe(400)
      expect(version.json()).toEqual(refusal)
    } finally {
      await store.connections.remove(INSTALL_CONNECTIONS, 'plain-host')
    }
    const plain = (await store.libraries.byId('/acme/plain'))!
    expect((await store.jobs.list({ states: ['queued', 'running'], limit: 100 })).filter((j) => j.libraryPk === plain.pk)).toEqual([])
  })

  it('is sent on-premise, as asked', async () => {
    const onprem = await buildTestApp({ startWorker: false, defer })
    const res = await onprem.inject({
      method: 'POST',
      url: '/api/v2/add/repo/git',
      headers: bearer(await createKey(onprem)),
      payload: { docsRepoUrl: `${plainUrl()}/acme/widgets`, gitToken: TOKEN },
    })
    expect(res.statusCode, res.body).toBe(200)
  })
})

describe("the operator's key (of no teamspace: `lectern keys create`, the dashboard's keys)", () => {
  it("adds a private repository as the install's own, which it sees and no tenant does", async () => {
    const operatorKey = await createKey(app, 'ops')
    const added = await addGit(operatorKey, `${gitServer}/acme/strongbox`, { gitToken: TOKEN })
    expect(added.statusCode, added.body).toBe(200)
    const strongbox = added.json().libraryName
    expect(strongbox).toBe('/acme/strongbox')
    expect(await app.runtime.store.libraries.byId(strongbox)).toMatchObject({ isPrivate: true, teamPk: null })
    expect((await waitForLibrary(app, strongbox)).state).toBe('finalized')

    const own = await getJson(`/api/v2/context?libraryId=${strongbox}&query=mount+a+widget&type=json`, operatorKey)
    expect(own.statusCode, own.body).toBe(200)
    expect(own.body).toContain('render(el')
    const search = await getJson('/api/v2/libs/search?libraryName=strongbox', operatorKey)
    expect(search.json().results.map((r: { id: string }) => r.id)).toContain(strongbox)
    for (const key of [tenants.acme.keys.owner, tenants.beta.keys.developer, undefined]) {
      expect((await getJson(`/api/v2/context?libraryId=${strongbox}&query=widget`, key)).statusCode).toBe(404)
    }
  })

  it("sees every teamspace's private library, as the operator's admin session does", async () => {
    const operatorKey = await createKey(app, 'ops')
    const context = await getJson(`/api/v2/context?libraryId=${acmeLibrary}&query=mount+a+widget&type=json`, operatorKey)
    expect(context.statusCode, context.body).toBe(200)
    const search = await getJson('/api/v2/libs/search?libraryName=widgets', operatorKey)
    expect(search.json().results.map((r: { id: string }) => r.id)).toContain(acmeLibrary)
  })
})

describe("another teamspace's private library is an unknown library", () => {
  const unknownId = () => `/acme/widgets--t${tenants.solo.teamPk + 1000}`

  it('is found and answered for its own teamspace', async () => {
    const search = await getJson('/api/v2/libs/search?libraryName=widgets', tenants.acme.keys.developer)
    expect(search.json().results.map((r: { id: string }) => r.id)).toContain(acmeLibrary)
    const context = await getJson(`/api/v2/context?libraryId=${acmeLibrary}&query=mount+a+widget&type=json`, tenants.acme.keys.developer)
    expect(context.statusCode).toBe(200)
    expect(context.body).toContain('render(el')
  })

  it.each([
    ['another teamspace', () => tenants.beta.keys.owner],
    ['a free personal space', () => tenants.solo.keys.owner],
    ['an anonymous caller', () => undefined],
  ])('search omits it and context answers 404 as for an unknown ID, for %s', async (_, key) => {
    const search = await getJson('/api/v2/libs/search?libraryName=widgets', key())
    expect(search.body).not.toContain(acmeLibrary)
    const context = await getJson(`/api/v2/context?libraryId=${acmeLibrary}&query=widget`, key())
    const unknown = await getJson(`/api/v2/context?libraryId=${unknownId()}&query=widget`, key())
    expect(context.statusCode).toBe(404)
    expect(context.json()).toEqual({ error: 'library_not_found', message: unknown.json().message.replace(unknownId(), acmeLibrary) })
    const status = await getJson('/api/parse-status', key())
    expect(status.body).not.toContain(acmeLibrary)
  })

  it('refresh answers 404 library_not_found to another teamspace', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/refresh', headers: bearer(tenants.beta.keys.owner), payload: { libraryName: acmeLibrary } })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toMatchObject({ error: 'library_not_found' })
  })

  it('the cloud export refuses it as unknown', async () => {
    const { licenseKey } = await issueLicense(app.runtime.store, { customer: 'Beta Corp', offline: true, expires: '2099-12-31' })
    const res = await app.inject({ method: 'POST', url: '/api/v1/enterprise/export', headers: bearer(licenseKey), payload: { library: acmeLibrary } })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toMatchObject({ error: 'library_not_found' })
  })

  it('MCP omits it from resolve-library-id and query-docs answers as for an unknown ID', async () => {
    const client = new Client({ name: 'lectern-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(tenants.beta.keys.owner) } }))
    try {
      const text = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; isError?: boolean }
        return { text: result.content.map((c) => c.text).join('\n'), isError: result.isError === true }
      }
      expect((await text('resolve-library-id', { libraryName: 'widgets' })).text).not.toContain(acmeLibrary)
      const hidden = await text('query-docs', { libraryId: acmeLibrary, query: 'mount a widget' })
      const unknown = await text('query-docs', { libraryId: unknownId(), query: 'mount a widget' })
      expect(hidden.isError).toBe(true)
      expect(hidden.text).toBe(unknown.text.replace(unknownId(), acmeLibrary))
    } finally {
      await client.close()
    }
  })
})

describe("the install's stored git connection, the operator's alone", () => {
  it('never lends its token to a tenant: the add stays public and its clone is refused, now and at a later refresh', async () => {
    const { connections } = app.runtime.store
    await connections.create(INSTALL_CONNECTIONS, { kind: 'git', name: 'loopback-git', baseUrl: gitServer, token: TOKEN })
    try {
      const res = await addGit(tenants.acme.keys.admin, `${gitServer}/acme/vault`)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().libraryName).toBe('/acme/vault')
      expect(await app.runtime.store.libraries.byId('/acme/vault')).toMatchObject({ isPrivate: false, teamPk: null })
      expect((await waitForLibrary(app, '/acme/vault')).state).toBe('error')
      expect(vaultAuthorizations).toEqual([])

      // The operator's refresh of every library (`lectern refresh --all`) runs as the CLI.
      const refresh = await refreshLibrary(app.runtime.store, { libraryId: '/acme/vault', force: true }, LOCAL, app.runtime.guard)
      app.runtime.worker.wake()
      expect(await waitForJobEnd(refresh.job.pk)).toBe('failed')
      expect(vaultAuthorizations).toEqual([])
      const vault = (await app.runtime.store.libraries.byId('/acme/vault'))!
      expect((await app.runtime.store.libraries.version(vault.pk, ''))!.currentSet).toBeNull()
    } finally {
      await connections.remove(INSTALL_CONNECTIONS, 'loopback-git')
    }
  })

  it("reads the operator's own add through it, as a private library of the install", async () => {
    const { connections } = app.runtime.store
    await connections.create(INSTALL_CONNECTIONS, { kind: 'git', name: 'loopback-git', baseUrl: gitServer, token: TOKEN })
    try {
      const operator = await signIn(app)
      const res = await app.inject({ method: 'POST', url: '/api/v2/add/repo/git', cookies: operator, payload: { docsRepoUrl: `${gitServer}/acme/ledger` } })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().libraryName).toBe('/acme/ledger')
      expect(await app.runtime.store.libraries.byId('/acme/ledger')).toMatchObject({ isPrivate: true, teamPk: null })
      expect((await waitForLibrary(app, '/acme/ledger')).state).toBe('finalized')
      expect((await getJson('/api/v2/context?libraryId=/acme/ledger&query=widget', tenants.acme.keys.owner)).json()).toMatchObject({ error: 'library_not_found' })
    } finally {
      await connections.remove(INSTALL_CONNECTIONS, 'loopback-git')
    }
  })
})

describe("Confluence and Notion, read only through the install's stored connections", () => {
  const NOTION_PAGE = '3c2e3d4c-5b6a-4798-8a1f-2e3d4c5b6a79'
  let confluence: StandIn
  let notion: StandIn

  beforeAll(async () => {
    confluence = await confluenceStandIn({ flavor: 'cloud', spaceKey: 'OPS', email: 'bot@acme.test', token: 'confluence-token-value', pages: [
      { id: '501', title: 'Deployments', storage: '<h2>Scale a deployment</h2><p>Change the replica count of a running deployment with kubectl scale, never by editing its manifest.</p>' },
    ] }, defer)
    notion = await notionStandIn({ token: 'secret_ntn_value', pages: [{ id: NOTION_PAGE, title: 'Feature flags', blocks: [
      textBlock('heading_1', 'Toggle a flag'),
      textBlock('paragraph', 'Flags are toggled per environment from the flags service, never by editing config files by hand.'),
    ] }] }, defer)
    await app.runtime.store.connections.create(INSTALL_CONNECTIONS, { kind: 'confluence', name: 'acme-wiki', baseUrl: confluence.url, email: 'bot@acme.test', token: 'confluence-token-value' })
    await app.runtime.store.connections.create(INSTALL_CONNECTIONS, { kind: 'notion', name: 'acme-notion', baseUrl: notion.url, token: 'secret_ntn_value' })
  })

  const confluenceBody = () => ({
    cloudId: 'ignored', siteUrl: confluence.url, spaceKey: 'OPS', spaceName: 'Operations', title: 'Ops handbook', description: 'How we run things',
  })
  const notionBody = { workspaceId: 'w-1', workspaceName: 'acme-notion', pageIds: [NOTION_PAGE], title: 'Flags guide', description: 'Feature flags' }

  it("are not found for any tenant, whose adds look among its own teamspace's connections: nothing stored and nothing read", async () => {
    const before = (await app.runtime.store.libraries.list()).length
    for (const key of [tenants.beta.keys.owner, tenants.beta.keys.developer, tenants.solo.keys.owner]) {
      for (const [url, payload] of [['/api/v2/add/confluence', confluenceBody()], ['/api/v2/add/notion', notionBody]] as const) {
        const res = await app.inject({ method: 'POST', url, headers: bearer(key), payload })
        expect(res.statusCode, res.body).toBe(400)
        expect(res.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining("A teamspace owner or admin adds one under the teamspace's Connections.") })
      }
    }
    expect(await app.runtime.store.libraries.list()).toHaveLength(before)
    expect(confluence.requests).toEqual([])
    expect(notion.requests).toEqual([])
  })

  it("are not read for a teamspace's library added before this rule, whoever refreshes it", async () => {
    const spec = { type: 'confluence', connection: 'acme-wiki', spaceKey: 'OPS' }
    const { library } = await app.runtime.store.libraries.create({
      id: `/confluence/ops--t${tenants.beta.teamPk}`, title: 'Ops', sourceKind: 'confluence', sourceUrl: `${confluence.url} space OPS`, isPrivate: true, teamPk: tenants.beta.teamPk, options: { spec },
    })
    const refresh = await refreshLibrary(app.runtime.store, { libraryId: library.id }, LOCAL, app.runtime.guard)
    app.runtime.worker.wake()
    expect(await waitForJobEnd(refresh.job.pk)).toBe('failed')
    // The job looks the name up among Beta's connections, which hold no "acme-wiki".
    expect(await app.runtime.store.jobs.byPk(refresh.job.pk)).toMatchObject({ errorCode: 'validation_error' })
    expect(confluence.requests).toEqual([])
  })

  it("serve the operator's own adds, as private libraries of the install", async () => {
    const operator = await signIn(app)
    const added = await app.inject({ method: 'POST', url: '/api/v2/add/notion', cookies: operator, payload: notionBody })
    expect(added.statusCode, added.body).toBe(200)
    const id = added.json().libraryName
    expect(id).toBe('/notion/flags-guide')
    expect(await app.runtime.store.libraries.byId(id)).toMatchObject({ isPrivate: true, teamPk: null })
    expect((await waitForLibrary(app, id)).state).toBe('finalized')
    expect((await getJson(`/api/v2/context?libraryId=${id}&query=flags`, tenants.beta.keys.owner)).json()).toMatchObject({ error: 'library_not_found' })
  })
})
