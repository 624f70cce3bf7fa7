/**
 * Cloud mode: a teamspace's own connections (Confluence, Notion, private git). Owners and admins
 * add and remove them over HTTP, every member lists them without tokens, and only that
 * teamspace's adds and jobs read through them: another teamspace never sees nor uses them, and
 * neither teamspace reaches the operator's. The private repository is a real git server
 * (`git http-backend`) on 127.0.0.1 that refuses clones without the token; Confluence and Notion,
 * which cannot run here, are loopback STAND-INS speaking the subset of their APIs Lectern reads
 * (test/helpers/workspace-standins.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import knexFactory from 'knex'
import { beforeAll, describe, expect, it } from 'vitest'
import { MIGRATIONS, sourceOf } from '../../migrations/index.js'
import { LOCAL } from '../../src/library/access.js'
import { refreshLibrary } from '../../src/jobs/library-jobs.js'
import { removeLibrary } from '../../src/library/admin.js'
import { dataPaths } from '../../src/install/paths.js'
import { createSecretBox } from '../../src/secrets/cipher.js'
import { loadOrCreateSecretKey } from '../../src/secrets/key.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'
import { openStore } from '../../src/store/index.js'
import { buildTestApp, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo } from '../helpers/git.js'
import { startGitServer } from '../helpers/git-server.js'
import { pollUntil } from '../helpers/poll.js'
import { signIn } from '../helpers/session.js'
import { bearer, createTenants, type Tenants } from '../helpers/tenants.js'
import { gitTrustedCertificate } from '../helpers/tls.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { confluenceStandIn, notionStandIn, textBlock, type StandIn } from '../helpers/workspace-standins.js'

const defer = suiteTeardown()
const GIT_TOKEN = 'glpat_acme_private_git_token'
const ACME_WIKI_TOKEN = 'acme-confluence-token-value'
const BETA_WIKI_TOKEN = 'beta-confluence-token-value'
const OPERATOR_WIKI_TOKEN = 'operator-confluence-token-value'
const ACME_NOTION_TOKEN = 'secret_acme_notion_value'
const SECRETS = [GIT_TOKEN, ACME_WIKI_TOKEN, BETA_WIKI_TOKEN, OPERATOR_WIKI_TOKEN, ACME_NOTION_TOKEN]
const NOTION_PAGE = '3c2e3d4c-5b6a-4798-8a1f-2e3d4c5b6a79'
const DOCS = { 'docs/guide.md': '# Guide\n\n## Rotate a ledger\n\nRotate the ledger nightly with rotate(ledger):\n\n```js\nrotate(ledger, { keep: 7 })\n```\n' }

let app: FastifyInstance
let tenants: Tenants
let gitServer: string
/** The Authorization header of every request for acme/ledger, '' when none was sent. */
const ledgerAuthorizations: string[] = []
let acmeWiki: StandIn
let betaWiki: StandIn
let acmeNotion: StandIn
const sessions: Record<'acmeOwner' | 'acmeAdmin' | 'acmeDev' | 'betaOwner' | 'solo', { lectern_session: string }> = {} as never

const member = (email: string) => signIn(app, 'member', email)
const teamUrl = (teamPk: number, rest = '') => `/api/teams/${teamPk}/connections${rest}`
const createConnection = (cookies: { lectern_session: string }, teamPk: number, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: teamUrl(teamPk), cookies, payload })
const listConnections = (cookies: { lectern_session: string }, teamPk: number) => app.inject({ url: teamUrl(teamPk), cookies })
const addWith = (key: string, source: 'confluence' | 'notion', payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: `/api/v2/add/${source}`, headers: bearer(key), payload })
const addGit = (key: string, docsRepoUrl: string) => app.inject({ method: 'POST', url: '/api/v2/add/repo/git', headers: bearer(key), payload: { docsRepoUrl } })
const waitForJobEnd = (pk: number) =>
  pollUntil(`job ${pk} to end`, async () => {
    const state = (await app.runtime.store.jobs.byPk(pk))?.state
    return state === 'succeeded' || state === 'failed' ? state : undefined
  })
const expectNoSecret = (body: string) => {
  for (const secret of SECRETS) expect(body).not.toContain(secret)
}

const wikiPage = (title: string, text: string) => [{ id: '501', title, storage: `<h2>${title}</h2><p>${text}</p>` }]

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(DOCS, { parent: path.join(remotes, 'acme'), name: 'ledger', defer })
  await makeGitRepo({ 'README.md': '# Handbook\n\n## Close the books\n\nClose the books at month end with close(period):\n\n```js\nclose(period, { lock: true })\n```\n' }, { parent: path.join(remotes, 'acme'), name: 'handbook', defer })
  // Over https: in cloud mode a token goes only over https.
  const tls = await gitTrustedCertificate(remotes, defer)
  const expected = `Basic ${Buffer.from(`x-access-token:${GIT_TOKEN}`).toString('base64')}`
  const server = await startGitServer(remotes, {
    defer,
    tls,
    // acme/ledger is private: without Acme's token the host answers as GitLab does, 401.
    route: (req, res, url) => {
      if (url.pathname.startsWith('/acme/ledger')) ledgerAuthorizations.push(req.headers.authorization ?? '')
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end()
        return undefined
      }
      return url.pathname
    },
  })
  gitServer = server.url
  // Acme's and the operator's connections reach the same site, each with its own token.
  acmeWiki = await confluenceStandIn({ flavor: 'datacenter', spaceKey: 'OPS', token: ACME_WIKI_TOKEN, pages: wikiPage('Deployments', 'Change the replica count of a running deployment with kubectl scale, never by editing its manifest in the repository by hand.') }, defer)
  betaWiki = await confluenceStandIn({ flavor: 'datacenter', spaceKey: 'OPS', token: BETA_WIKI_TOKEN, pages: wikiPage('Beta runbook', 'Beta restarts the pods of a deployment with a rolling restart, one pod at a time, so that the service never goes down.') }, defer)
  acmeNotion = await notionStandIn({ token: ACME_NOTION_TOKEN, pages: [{ id: NOTION_PAGE, title: 'Feature flags', blocks: [
    textBlock('heading_1', 'Toggle a flag'),
    textBlock('paragraph', 'Flags are toggled per environment from the flags service, never by editing config files by hand on a production host.'),
  ] }] }, defer)
  app = await buildTestApp({ mode: 'cloud', fetch: { allow: ['127.0.0.1'] }, defer })
  tenants = await createTenants(app)
  await app.runtime.store.connections.create(INSTALL_CONNECTIONS, { kind: 'confluence', name: 'ops-wiki', baseUrl: acmeWiki.url, token: OPERATOR_WIKI_TOKEN })
  await app.runtime.store.connections.create(INSTALL_CONNECTIONS, { kind: 'git', name: 'operator-git', baseUrl: gitServer, token: GIT_TOKEN })
  sessions.acmeOwner = await member('owner@acme.example')
  sessions.acmeAdmin = await member('admin@acme.example')
  sessions.acmeDev = await member('dev@acme.example')
  sessions.betaOwner = await member('owner@beta.example')
  sessions.solo = await member('solo@example.com')
})

describe('a teamspace manages its connections over HTTP', () => {
  it('lets an owner and an admin add them, answering without the token', async () => {
    const wiki = await createConnection(sessions.acmeOwner, tenants.acme.teamPk, { kind: 'confluence', name: 'wiki', site: acmeWiki.url, token: ACME_WIKI_TOKEN })
    expect(wiki.statusCode, wiki.body).toBe(201)
    expect(wiki.json()).toMatchObject({ kind: 'confluence', name: 'wiki', baseUrl: acmeWiki.url, email: null })
    const notes = await createConnection(sessions.acmeAdmin, tenants.acme.teamPk, { kind: 'notion', name: 'notes', apiUrl: acmeNotion.url, token: ACME_NOTION_TOKEN })
    expect(notes.statusCode, notes.body).toBe(201)
    const git = await createConnection(sessions.acmeAdmin, tenants.acme.teamPk, { kind: 'git', name: 'ledger-host', host: gitServer, token: GIT_TOKEN })
    expect(git.statusCode, git.body).toBe(201)
    for (const res of [wiki, notes, git]) expectNoSecret(res.body)
  })

  it('lists them to every member, developers too, without tokens; the install and other teamspaces have their own lists', async () => {
    const res = await listConnections(sessions.acmeDev, tenants.acme.teamPk)
    expect(res.statusCode).toBe(200)
    expect(res.json().connections.map((c: { name: string }) => c.name)).toEqual(['ledger-host', 'notes', 'wiki'])
    expectNoSecret(res.body)
    expect((await listConnections(sessions.betaOwner, tenants.beta.teamPk)).json()).toEqual({ connections: [] })
    expect((await app.runtime.store.connections.list(INSTALL_CONNECTIONS)).map((c) => c.name)).toEqual(['operator-git', 'ops-wiki'])
  })

  it("answers another teamspace's member as for a teamspace that does not exist", async () => {
    for (const [method, url] of [['GET', teamUrl(tenants.acme.teamPk)], ['DELETE', teamUrl(tenants.acme.teamPk, '/wiki')]] as const) {
      const res = await app.inject({ method, url, cookies: sessions.betaOwner })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toMatchObject({ error: 'team_not_found' })
    }
    const created = await createConnection(sessions.betaOwner, tenants.acme.teamPk, { kind: 'git', name: 'sneaky', host: gitServer, token: 'x' })
    expect(created.statusCode).toBe(404)
    expect(await app.runtime.store.connections.get({ teamPk: tenants.acme.teamPk }, 'sneaky')).toBeUndefined()
  })

  it('refuses a developer, 403 forbidden, adding or removing, with nothing changed', async () => {
    const created = await createConnection(sessions.acmeDev, tenants.acme.teamPk, { kind: 'git', name: 'mine', host: gitServer, token: 'dev-token' })
    expect(created.statusCode).toBe(403)
    expect(created.json()).toEqual({ error: 'forbidden', message: 'As developer you may not manage private sources (owners and admins only).' })
    const removed = await app.inject({ method: 'DELETE', url: teamUrl(tenants.acme.teamPk, '/wiki'), cookies: sessions.acmeDev })
    expect(removed.statusCode).toBe(403)
    expect(await app.runtime.store.connections.list({ teamPk: tenants.acme.teamPk })).toHaveLength(3)
  })

  it('refuses a free plan, 403 forbidden', async () => {
    const res = await createConnection(sessions.solo, tenants.solo.teamPk, { kind: 'git', name: 'mine', host: gitServer, token: 'solo-token' })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'forbidden', message: 'Connections to private sources need a pro or team plan.' })
    expect(await app.runtime.store.connections.list({ teamPk: tenants.solo.teamPk })).toEqual([])
  })

  it('refuses a private address, 403 forbidden, as for any source in cloud mode', async () => {
    const res = await createConnection(sessions.betaOwner, tenants.beta.teamPk, { kind: 'confluence', name: 'intranet', site: 'https://10.1.2.3:8090', token: 'x' })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('10.1.2.3 is a private address') })
    expect(await app.runtime.store.connections.list({ teamPk: tenants.beta.teamPk })).toEqual([])
  })

  it('refuses a plain http URL, 400 validation_error, for a teamspace and for the install: a token goes only over https', async () => {
    const admin = await signIn(app)
    for (const [payload, what] of [
      [{ kind: 'confluence', name: 'clear-wiki', site: 'http://wiki.beta.example', token: BETA_WIKI_TOKEN }, 'Confluence site (wiki.beta.example)'],
      [{ kind: 'notion', name: 'clear-notion', apiUrl: 'http://notion-proxy.beta.example', token: ACME_NOTION_TOKEN }, 'Notion API (notion-proxy.beta.example)'],
      // Loopback is no exception for git: a git token goes only over https, so the connection could never be used.
      [{ kind: 'git', name: 'clear-git', host: 'http://127.0.0.1:9', token: GIT_TOKEN }, 'git host (127.0.0.1:9)'],
    ] as const) {
      for (const res of [await createConnection(sessions.betaOwner, tenants.beta.teamPk, payload), await app.inject({ method: 'POST', url: '/api/connections', cookies: admin, payload })]) {
        expect(res.statusCode, res.body).toBe(400)
        expect(res.json()).toEqual({ error: 'validation_error', message: `A token is sent only over https: use the https:// URL of the ${what}.` })
        expectNoSecret(res.body)
      }
    }
    expect(await app.runtime.store.connections.list({ teamPk: tenants.beta.teamPk })).toEqual([])
    expect((await app.runtime.store.connections.list(INSTALL_CONNECTIONS)).map((c) => c.name)).toEqual(['operator-git', 'ops-wiki'])
  })

  it('stores a connection to a host that does not resolve yet, as an add takes such a repository; a job through it fails source_unreachable', async () => {
    const res = await createConnection(sessions.betaOwner, tenants.beta.teamPk, { kind: 'confluence', name: 'future-wiki', site: 'https://wiki.beta.invalid', token: BETA_WIKI_TOKEN })
    expect(res.statusCode, res.body).toBe(201)
    const added = await addWith(tenants.beta.keys.owner, 'confluence', { cloudId: 'x', siteUrl: 'https://wiki.beta.invalid', spaceKey: 'OPS', spaceName: 'Ops', title: 'Future ops', description: 'x' })
    expect(added.statusCode, added.body).toBe(200)
    const addedLibrary = (await app.runtime.store.libraries.byId(added.json().libraryName))!
    const job = (await app.runtime.store.jobs.list({})).find((j) => j.libraryPk === addedLibrary.pk)!
    expect(await waitForJobEnd(job.pk)).toBe('failed')
    expect(await app.runtime.store.jobs.byPk(job.pk)).toMatchObject({ errorCode: 'source_unreachable', errorMessage: expect.stringContaining('wiki.beta.invalid') })
    await removeLibrary(app.runtime.store, added.json().libraryName, LOCAL)
    await app.runtime.store.connections.remove({ teamPk: tenants.beta.teamPk }, 'future-wiki')
  })

  it('keeps names unique per owner: another teamspace may take a name, the same teamspace may not', async () => {
    const beta = await createConnection(sessions.betaOwner, tenants.beta.teamPk, { kind: 'confluence', name: 'wiki', site: betaWiki.url, token: BETA_WIKI_TOKEN })
    expect(beta.statusCode, beta.body).toBe(201)
    const again = await createConnection(sessions.acmeAdmin, tenants.acme.teamPk, { kind: 'confluence', name: 'wiki', site: betaWiki.url, token: 'x' })
    expect(again.statusCode).toBe(400)
    expect(again.json()).toMatchObject({ error: 'validation_error' })
    expect((await app.runtime.store.connections.get({ teamPk: tenants.acme.teamPk }, 'wiki'))!.baseUrl).toBe(acmeWiki.url)
  })

  it('lets an admin remove one by name; a second removal is 404', async () => {
    expect((await createConnection(sessions.acmeAdmin, tenants.acme.teamPk, { kind: 'git', name: 'old-host', host: 'git.old-host.example', token: 'y' })).statusCode).toBe(201)
    const removed = await app.inject({ method: 'DELETE', url: teamUrl(tenants.acme.teamPk, '/old-host'), cookies: sessions.acmeAdmin })
    expect(removed.statusCode, removed.body).toBe(200)
    expect(removed.json()).toMatchObject({ name: 'old-host', kind: 'git' })
    const again = await app.inject({ method: 'DELETE', url: teamUrl(tenants.acme.teamPk, '/old-host'), cookies: sessions.acmeAdmin })
    expect(again.statusCode).toBe(404)
    const events = await app.runtime.store.audit.list({ action: 'connection', target: 'connection old-host' }, { limit: 10 })
    expect(events.map((e) => [e.action, e.actor.kind, e.details.teamId, e.details.baseUrl])).toEqual([
      ['connection.removed', 'user', tenants.acme.teamPk, 'https://git.old-host.example'],
      ['connection.added', 'user', tenants.acme.teamPk, 'https://git.old-host.example'],
    ])
  })
})

describe("a teamspace's adds and jobs read through its own connections only", () => {
  const confluenceBody = (siteUrl: string) => ({ cloudId: 'ignored', siteUrl, spaceKey: 'OPS', spaceName: 'Operations', title: 'Ops handbook', description: 'How we run things' })

  it("adds a Confluence space through Acme's connection, as Acme's private library", async () => {
    const res = await addWith(tenants.acme.keys.admin, 'confluence', confluenceBody(acmeWiki.url))
    expect(res.statusCode, res.body).toBe(200)
    const id = res.json().libraryName
    expect(id).toBe(`/confluence/ops-handbook--t${tenants.acme.teamPk}`)
    expect(await app.runtime.store.libraries.byId(id)).toMatchObject({ isPrivate: true, teamPk: tenants.acme.teamPk })
    expect((await waitForLibrary(app, id)).state).toBe('finalized')
    expect(new Set(acmeWiki.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${ACME_WIKI_TOKEN}`]))
    const context = await app.inject({ url: `/api/v2/context?libraryId=${id}&query=scale+a+deployment&type=json`, headers: bearer(tenants.acme.keys.developer) })
    expect(context.body).toContain('kubectl scale')
    const hidden = await app.inject({ url: `/api/v2/context?libraryId=${id}&query=scale`, headers: bearer(tenants.beta.keys.owner) })
    expect(hidden.json()).toMatchObject({ error: 'library_not_found' })
  })

  it("adds Notion pages through Acme's connection", async () => {
    const res = await addWith(tenants.acme.keys.owner, 'notion', { workspaceId: 'w-1', workspaceName: 'notes', pageIds: [NOTION_PAGE], title: 'Flags guide', description: 'Feature flags' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().libraryName).toBe(`/notion/flags-guide--t${tenants.acme.teamPk}`)
    expect((await waitForLibrary(app, res.json().libraryName)).state).toBe('finalized')
    expect(acmeNotion.requests.length).toBeGreaterThan(0)
    expect(acmeNotion.requests.every((r) => r.authorization === `Bearer ${ACME_NOTION_TOKEN}`)).toBe(true)
  })

  it("refuses a developer's add through the teamspace's connection, 403, with nothing stored", async () => {
    const before = (await app.runtime.store.libraries.list()).length
    const res = await addWith(tenants.acme.keys.developer, 'confluence', { ...confluenceBody(acmeWiki.url), title: 'Dev copy' })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ error: 'forbidden' })
    expect(await app.runtime.store.libraries.list()).toHaveLength(before)
  })

  it("finds neither Acme's nor the operator's connection for Beta: Beta's add of the same site is 400 and reads nothing", async () => {
    const requests = acmeWiki.requests.length
    for (const [source, payload] of [['confluence', confluenceBody(acmeWiki.url)], ['notion', { workspaceId: 'w', workspaceName: 'notes', pageIds: [NOTION_PAGE], title: 'Stolen flags', description: 'x' }]] as const) {
      const res = await addWith(tenants.beta.keys.owner, source, payload)
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json()).toMatchObject({ error: 'validation_error' })
      expectNoSecret(res.body)
    }
    expect(acmeWiki.requests).toHaveLength(requests)
  })

  it("reads a Beta library that names a connection Acme and the operator also have through Beta's alone, whoever refreshes it", async () => {
    const acmeRequests = acmeWiki.requests.length
    for (const connection of ['wiki', 'ops-wiki']) {
      const { library } = await app.runtime.store.libraries.create({
        id: `/confluence/${connection}--t${tenants.beta.teamPk}`,
        title: connection,
        sourceKind: 'confluence',
        sourceUrl: `${betaWiki.url} space OPS`,
        isPrivate: true,
        teamPk: tenants.beta.teamPk,
        options: { spec: { type: 'confluence', connection, spaceKey: 'OPS' } },
      })
      // The operator's `lectern refresh --all` runs as the CLI.
      const refresh = await refreshLibrary(app.runtime.store, { libraryId: library.id }, LOCAL, app.runtime.guard)
      app.runtime.worker.wake()
      const ended = await waitForJobEnd(refresh.job.pk)
      if (connection === 'wiki') {
        expect(ended, JSON.stringify(await app.runtime.store.jobs.byPk(refresh.job.pk))).toBe('succeeded')
        const context = await app.inject({ url: `/api/v2/context?libraryId=${library.id}&query=restart&type=json`, headers: bearer(tenants.beta.keys.developer) })
        expect(context.body).toContain('rolling restart')
      } else {
        // Beta has no "ops-wiki": the install's connection of that name is not Beta's.
        expect(ended).toBe('failed')
        expect(await app.runtime.store.jobs.byPk(refresh.job.pk)).toMatchObject({ errorCode: 'validation_error' })
      }
    }
    expect(acmeWiki.requests).toHaveLength(acmeRequests)
    expect(betaWiki.requests.every((r) => r.authorization === `Bearer ${BETA_WIKI_TOKEN}`)).toBe(true)
  })

  it('refuses at job time to read through a connection stored over plain http before the rule, sending nothing', async () => {
    const scope = { teamPk: tenants.beta.teamPk }
    await app.runtime.store.connections.create(scope, { kind: 'confluence', name: 'old-wiki', baseUrl: 'http://wiki.beta.example', token: BETA_WIKI_TOKEN })
    await app.runtime.store.connections.create(scope, { kind: 'notion', name: 'old-notion', baseUrl: 'http://notion-proxy.beta.example', token: ACME_NOTION_TOKEN })
    const specs = [{ type: 'confluence', connection: 'old-wiki', spaceKey: 'OPS' }, { type: 'notion', connection: 'old-notion', pageIds: [NOTION_PAGE] }]
    for (const spec of specs) {
      const { library } = await app.runtime.store.libraries.create({
        id: `/${spec.type}/${spec.connection}--t${tenants.beta.teamPk}`,
        title: spec.connection,
        sourceKind: spec.type,
        sourceUrl: spec.connection,
        isPrivate: true,
        teamPk: tenants.beta.teamPk,
        options: { spec },
      })
      const refresh = await refreshLibrary(app.runtime.store, { libraryId: library.id }, LOCAL, app.runtime.guard)
      app.runtime.worker.wake()
      expect(await waitForJobEnd(refresh.job.pk)).toBe('failed')
      expect(await app.runtime.store.jobs.byPk(refresh.job.pk)).toMatchObject({ errorCode: 'validation_error', errorMessage: expect.stringContaining('A token is sent only over https') })
      expectNoSecret(JSON.stringify(await app.runtime.store.jobs.byPk(refresh.job.pk)))
    }
    for (const name of ['old-wiki', 'old-notion']) await app.runtime.store.connections.remove(scope, name)
  })

  it("clones a private repository through Acme's git connection, now and at the operator's refresh; Beta's add of it gets no token", async () => {
    const res = await addGit(tenants.acme.keys.owner, `${gitServer}/acme/ledger`)
    expect(res.statusCode, res.body).toBe(200)
    const id = res.json().libraryName
    expect(id).toBe(`/acme/ledger--t${tenants.acme.teamPk}`)
    expect(await app.runtime.store.libraries.byId(id)).toMatchObject({ isPrivate: true, teamPk: tenants.acme.teamPk })
    expect((await waitForLibrary(app, id)).state).toBe('finalized')

    const refresh = await refreshLibrary(app.runtime.store, { libraryId: id, force: true }, LOCAL, app.runtime.guard)
    app.runtime.worker.wake()
    expect(await waitForJobEnd(refresh.job.pk)).toBe('succeeded')

    const developer = await addGit(tenants.acme.keys.developer, `${gitServer}/acme/ledger`)
    expect(developer.statusCode).toBe(403)

    // Beta has no git connection for the host, and the operator's is not Beta's: a public add, read without credentials.
    const sent = ledgerAuthorizations.length
    const beta = await addGit(tenants.beta.keys.owner, `${gitServer}/acme/ledger`)
    expect(beta.statusCode, beta.body).toBe(200)
    expect(beta.json().libraryName).toBe('/acme/ledger')
    expect(await app.runtime.store.libraries.byId('/acme/ledger')).toMatchObject({ isPrivate: false, teamPk: null })
    expect((await waitForLibrary(app, '/acme/ledger')).state).toBe('error')
    expect(ledgerAuthorizations.slice(sent).every((a) => a === '')).toBe(true)
  })

  it("takes a key of no teamspace for the operator's: it reads through the install's connection, never a teamspace's; a tenant session, which is no key, gets 401", async () => {
    const before = acmeWiki.requests.length
    const operatorKey = (await app.runtime.store.keys.create('no teamspace')).key
    const keyed = await addWith(operatorKey, 'confluence', { ...confluenceBody(acmeWiki.url), title: 'Operator handbook' })
    expect(keyed.statusCode, keyed.body).toBe(200)
    const id = keyed.json().libraryName
    expect(id).toBe('/confluence/operator-handbook')
    expect(await app.runtime.store.libraries.byId(id)).toMatchObject({ isPrivate: true, teamPk: null })
    // The site takes Acme's token only: the operator's is sent, and refused.
    expect(await waitForLibrary(app, id)).toMatchObject({ state: 'error', errorMessage: expect.stringContaining('connection "ops-wiki"') })
    const read = acmeWiki.requests.slice(before)
    expect(read.length).toBeGreaterThan(0)
    expect(read.every((r) => r.authorization?.includes(OPERATOR_WIKI_TOKEN))).toBe(true)
    const afterKey = acmeWiki.requests.length
    const session = await app.inject({ method: 'POST', url: '/api/v2/add/confluence', cookies: sessions.acmeOwner, payload: confluenceBody(acmeWiki.url) })
    expect(session.statusCode).toBe(401)
    expect(acmeWiki.requests).toHaveLength(afterKey)
  })
})

describe("the dashboard's add through a teamspace's connection (a session, no key)", () => {
  const addFromDashboard = (cookies: { lectern_session: string }, teamPk: number, payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: `/api/teams/${teamPk}/libraries`, cookies, payload })

  it("adds a Confluence space through the named connection as the teamspace's private library", async () => {
    const res = await addFromDashboard(sessions.acmeAdmin, tenants.acme.teamPk, { connection: 'wiki', spaceKey: 'OPS', title: 'Dashboard ops' })
    expect(res.statusCode, res.body).toBe(200)
    const id = res.json().libraryName
    expect(id).toBe(`/confluence/dashboard-ops--t${tenants.acme.teamPk}`)
    expect(await app.runtime.store.libraries.byId(id)).toMatchObject({ isPrivate: true, teamPk: tenants.acme.teamPk, sourceKind: 'confluence' })
    expect((await waitForLibrary(app, id)).state).toBe('finalized')
    const listed = await app.inject({ url: `/api/teams/${tenants.acme.teamPk}/libraries`, cookies: sessions.acmeDev })
    expect(listed.json().libraries).toContainEqual(expect.objectContaining({ id, owned: true }))
  })

  it('adds Notion pages through a Notion connection', async () => {
    const res = await addFromDashboard(sessions.acmeOwner, tenants.acme.teamPk, { connection: 'notes', pageIds: [NOTION_PAGE], title: 'Dashboard flags' })
    expect(res.statusCode, res.body).toBe(200)
    expect((await waitForLibrary(app, res.json().libraryName)).state).toBe('finalized')
  })

  it("adds a repository of a git connection's host, cloned with its token, as the teamspace's private library", async () => {
    const res = await addFromDashboard(sessions.acmeAdmin, tenants.acme.teamPk, { connection: 'ledger-host', repoUrl: `${gitServer}/acme/handbook` })
    expect(res.statusCode, res.body).toBe(200)
    const id = res.json().libraryName
    expect(id).toBe(`/acme/handbook--t${tenants.acme.teamPk}`)
    const library = (await app.runtime.store.libraries.byId(id))!
    expect(res.json().message).toBe(`Library ${id} submitted for processing (job ${(await app.runtime.store.jobs.list({})).find((j) => j.libraryPk === library.pk)!.pk}).`)
    expect(await app.runtime.store.libraries.byId(id)).toMatchObject({ isPrivate: true, teamPk: tenants.acme.teamPk, sourceKind: 'git' })
    expect((await waitForLibrary(app, id)).state).toBe('finalized')
    // A repository on another host than the connection's is refused: its token is for its host alone.
    const elsewhere = await addFromDashboard(sessions.acmeAdmin, tenants.acme.teamPk, { connection: 'ledger-host', repoUrl: 'https://gitlab.example.com/acme/handbook' })
    expect(elsewhere.statusCode).toBe(400)
    expect(elsewhere.json()).toEqual({ error: 'validation_error', message: `The connection "ledger-host" is for ${new URL(gitServer).host}, and this repository is on gitlab.example.com: add a git connection for gitlab.example.com first.` })
    const noUrl = await addFromDashboard(sessions.acmeAdmin, tenants.acme.teamPk, { connection: 'ledger-host' })
    expect(noUrl.json()).toEqual({ error: 'validation_error', message: '"ledger-host" is a git connection: give the repository\'s URL (repoUrl).' })
    const notGit = await addFromDashboard(sessions.acmeAdmin, tenants.acme.teamPk, { connection: 'wiki', repoUrl: `${gitServer}/acme/handbook`, spaceKey: 'OPS' })
    expect(notGit.statusCode).toBe(400)
  })

  it('accepts a repository whose host does not resolve, saying its job fails unless it does and how fetch.allow works', async () => {
    expect((await createConnection(sessions.acmeAdmin, tenants.acme.teamPk, { kind: 'git', name: 'internal-git', host: 'https://git.acme.invalid', token: 'z' })).statusCode).toBe(201)
    const res = await addFromDashboard(sessions.acmeAdmin, tenants.acme.teamPk, { connection: 'internal-git', repoUrl: 'https://git.acme.invalid/platform/sdk' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().message).toMatch(/submitted for processing \(job \d+\)\. Note: git\.acme\.invalid does not resolve \(\w+\)\. If it is a host of your own network .* the operator names it in fetch\.allow \(LECTERN_FETCH_ALLOW\), which lets Lectern reach that host as it is\. The job fails unless it resolves when it runs\.$/)
    const failed = await waitForLibrary(app, res.json().libraryName)
    expect(failed).toMatchObject({ state: 'error', errorCode: 'source_unreachable', errorMessage: expect.stringContaining('fetch.allow') })
    await removeLibrary(app.runtime.store, res.json().libraryName, LOCAL)
    await app.runtime.store.connections.remove({ teamPk: tenants.acme.teamPk }, 'internal-git')
  })

  it("refuses a developer and a free plan 403, another teamspace's connection or member 400 or 404, a git connection without a repository 400; nothing stored", async () => {
    const before = (await app.runtime.store.libraries.list()).length
    const developer = await addFromDashboard(sessions.acmeDev, tenants.acme.teamPk, { connection: 'wiki', spaceKey: 'OPS', title: 'Dev' })
    expect(developer.statusCode).toBe(403)
    expect(developer.json()).toEqual({ error: 'forbidden', message: 'Only team owners and admins may add private sources.' })
    const free = await addFromDashboard(sessions.solo, tenants.solo.teamPk, { connection: 'wiki', spaceKey: 'OPS' })
    expect(free.statusCode).toBe(403)
    expect(free.json()).toEqual({
      error: 'forbidden',
      message: 'Private sources (uploads, Confluence, Notion) need a pro or enterprise plan; the operator sets plans with `lectern teams plan set`.',
    })
    // Beta's own "wiki" is Beta's: Acme's "notes" is no connection of Beta's.
    const foreign = await addFromDashboard(sessions.betaOwner, tenants.beta.teamPk, { connection: 'notes', pageIds: [NOTION_PAGE], title: 'Stolen' })
    expect(foreign.statusCode).toBe(400)
    expect(foreign.json()).toEqual({ error: 'validation_error', message: 'This teamspace has no connection named "notes".' })
    const outsider = await addFromDashboard(sessions.betaOwner, tenants.acme.teamPk, { connection: 'wiki', spaceKey: 'OPS', title: 'Outsider' })
    expect(outsider.statusCode).toBe(404)
    expect(outsider.json()).toMatchObject({ error: 'team_not_found' })
    const git = await addFromDashboard(sessions.acmeAdmin, tenants.acme.teamPk, { connection: 'ledger-host', spaceKey: 'OPS' })
    expect(git.statusCode).toBe(400)
    expect(git.json().message).toContain('is a git connection')
    const noSpace = await addFromDashboard(sessions.acmeAdmin, tenants.acme.teamPk, { connection: 'wiki' })
    expect(noSpace.statusCode).toBe(400)
    expect(await app.runtime.store.libraries.list()).toHaveLength(before)
  })
})

describe('deleting a teamspace', () => {
  it('deletes its connections after its libraries', async () => {
    const owner = await app.runtime.store.users.create({ email: 'owner@gamma.example', password: 'correct horse battery staple', role: 'member' })
    const gamma = await app.runtime.store.teams.create({ name: 'Gamma', ownerUserId: owner.id, plan: 'pro' })
    const cookies = await member('owner@gamma.example')
    expect((await createConnection(cookies, gamma.id, { kind: 'confluence', name: 'wiki', site: acmeWiki.url, token: ACME_WIKI_TOKEN })).statusCode).toBe(201)
    const key = (await app.runtime.store.keys.create('gamma', { userId: owner.id, teamId: gamma.id })).key
    const added = await addWith(key, 'confluence', { cloudId: 'ignored', siteUrl: acmeWiki.url, spaceKey: 'OPS', spaceName: 'Operations', title: 'Gamma ops', description: 'x' })
    expect(added.statusCode, added.body).toBe(200)
    await waitForLibrary(app, added.json().libraryName)

    const removed = await app.inject({ method: 'DELETE', url: `/api/teams/${gamma.id}`, cookies })
    expect(removed.statusCode, removed.body).toBe(200)
    expect(removed.json().libraries).toEqual([added.json().libraryName])
    expect(await app.runtime.store.connections.list({ teamPk: gamma.id })).toEqual([])
    expect(await app.runtime.store.connections.list({ teamPk: tenants.acme.teamPk })).toHaveLength(3)
  })
})

describe('upgrading a data directory to teamspace connections', () => {
  it("keeps the install's connections, their tokens and their names unique among the install's", async () => {
    const dataDir = await tmpDir('lectern-data-') // empty: the schema of an older Lectern is built below
    const paths = dataPaths(dataDir)
    fs.mkdirSync(paths.vectors, { recursive: true })
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: paths.database }, useNullAsDefault: true })
    await knex.migrate.latest({
      migrationSource: sourceOf(MIGRATIONS.slice(0, MIGRATIONS.findIndex(([name]) => name === '0017_accounts') + 1)),
    })
    await knex.destroy()
    const sealed = createSecretBox(loadOrCreateSecretKey(paths.secretKey)).seal(GIT_TOKEN)
    const db = new Database(paths.database)
    db.prepare("INSERT INTO connections (kind, name, base_url, token_sealed, created_at) VALUES ('git', 'gitlab', 'https://gitlab.example.com', ?, '2026-01-01T00:00:00.000Z')").run(sealed)
    db.close()

    const store = await openStore(dataDir)
    try {
      expect(await store.connections.list(INSTALL_CONNECTIONS)).toEqual([expect.objectContaining({ kind: 'git', name: 'gitlab', baseUrl: 'https://gitlab.example.com' })])
      expect(await store.connections.token(INSTALL_CONNECTIONS, 'gitlab')).toBe(GIT_TOKEN)
      await expect(store.connections.create(INSTALL_CONNECTIONS, { kind: 'git', name: 'gitlab', baseUrl: 'https://other.example.com', token: 'x' })).rejects.toThrow(/already exists/)
    } finally {
      await store.close()
    }
  })
})
