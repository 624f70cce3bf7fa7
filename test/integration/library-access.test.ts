/**
 * On-premise library access control through HTTP (and MCP): a restricted library is reached by
 * admins, by the users granted it and their keys, and by nobody else, to whom it answers exactly
 * as an unknown library; the workspace default for libraries nobody configured; the admin API's
 * refusals.
 */
import type { FastifyInstance } from 'fastify'
import { describe, expect, it, vi } from 'vitest'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { signIn } from '../helpers/session.js'

const DOCS = { 'docs/deploy.md': '# Billing\n\n## Deploy\n\nDeploy the billing service with the deploy script and a release tag.\n\n```bash\n./deploy.sh v1\n```\n' }

type Headers = Record<string, string>
const bearer = (key: string): Headers => ({ authorization: `Bearer ${key}` })
const cookie = (session: { lectern_session: string }): Headers => ({ cookie: `lectern_session=${session.lectern_session}` })

async function setUp() {
  const app = await buildTestApp({ startWorker: false })
  const secret = await seedLibrary(app, '/acme/billing', DOCS)
  await seedLibrary(app, '/acme/widgets', { 'docs/widgets.md': '# Widgets\n\n## Billing widgets\n\nRender a billing widget on the page.\n\n```js\nrender(billingWidget)\n```\n' })
  const admin = cookie(await signIn(app, 'admin'))
  const alice = cookie(await signIn(app, 'member', 'alice@example.com'))
  const bob = cookie(await signIn(app, 'member', 'bob@example.com'))
  const { users, keys } = app.runtime.store
  const ownerOf = async (email: string) => ({ userId: (await users.byEmail(email))!.id, teamId: null })
  const adminKey = (await app.inject({ method: 'POST', url: '/api/keys', headers: admin, payload: { name: 'ops' } })).json().key as string
  return {
    app,
    secretPk: secret.libraryPk,
    admin,
    alice,
    bob,
    aliceKey: bearer((await keys.create('alice', await ownerOf('alice@example.com'))).key),
    bobKey: bearer((await keys.create('bob', await ownerOf('bob@example.com'))).key),
    installKey: bearer(await createKey(app)),
    adminKey: bearer(adminKey),
  }
}

/** What a caller learns of a library: search, context, MCP, parse-status. */
async function reach(app: FastifyInstance, headers: Headers, id: string) {
  const search = await app.inject({ url: '/api/v2/libs/search?libraryName=acme', headers })
  const context = await app.inject({ url: `/api/v2/context?libraryId=${id}&query=deploy`, headers })
  const mcp = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'query-docs', arguments: { libraryId: id, query: 'deploy' } } },
  })
  const status = await app.inject({ url: '/api/parse-status', headers })
  return {
    searchIds: search.statusCode === 200 ? (search.json().results as Array<{ id: string }>).map((r) => r.id) : [],
    context: { status: context.statusCode, body: context.body.replaceAll(id, '<id>') },
    mcp: JSON.stringify(mcp.json().result).replaceAll(id, '<id>'),
    status: status.body,
  }
}

const restrict = (app: FastifyInstance, headers: Headers, id: string, body: object) =>
  app.inject({ method: 'PUT', url: `/api/libraries${id}/access`, headers, payload: body })

describe('on-premise library access control', () => {
  it('a restricted library: admins, granted users and their keys reach it; to anyone else it is an unknown library', async () => {
    const s = await setUp()
    const queued = await s.app.runtime.store.jobs.enqueue({ kind: 'refresh', libraryPk: s.secretPk })
    expect((await reach(s.app, s.bob, '/acme/billing')).searchIds).toContain('/acme/billing')

    const set = await restrict(s.app, s.admin, '/acme/billing', { access: 'restricted', users: ['alice@example.com'] })
    expect(set.statusCode, set.body).toBe(200)
    expect(set.json()).toEqual({ libraryId: '/acme/billing', title: 'billing', access: 'restricted', effective: 'restricted', namespace: null, users: [{ userId: expect.any(Number), email: 'alice@example.com' }], groups: [] })

    const unknown = await reach(s.app, s.bob, '/acme/nothing')
    for (const outsider of [s.bob, s.bobKey, s.installKey, {}]) {
      const seen = await reach(s.app, outsider, '/acme/billing')
      expect(seen.searchIds).toEqual(['/acme/widgets'])
      expect(seen.context).toEqual(unknown.context)
      expect(seen.context.status).toBe(404)
      expect(seen.mcp).toBe(unknown.mcp)
      expect(seen.status).not.toContain('/acme/billing')
    }
    for (const insider of [s.alice, s.aliceKey, s.admin, s.adminKey]) {
      const seen = await reach(s.app, insider, '/acme/billing')
      expect(seen.searchIds).toContain('/acme/billing')
      expect(seen.context.status).toBe(200)
      expect(seen.context.body).toContain('./deploy.sh v1')
      expect(seen.mcp).toContain('deploy.sh v1')
      expect(seen.status).toContain('/acme/billing')
    }
    await s.app.runtime.store.jobs.fail(queued, 'source_unreachable', 'git clone failed')
    expect((await reach(s.app, s.bobKey, '/acme/billing')).status).not.toContain('/acme/billing')
    expect((await reach(s.app, s.aliceKey, '/acme/billing')).status).toContain('/acme/billing')

    // The dashboard's key is its admin's; grants are read once per catalogue version, not per request or library.
    expect((await s.app.runtime.store.keys.list()).find((k) => k.name === 'ops')!.userId).toBe((await s.app.runtime.store.users.byEmail('admin@example.com'))!.id)
    const rules = vi.spyOn(s.app.runtime.store.libraryAccess, 'facts')
    for (const caller of [s.bob, s.aliceKey, s.installKey, s.bobKey]) await reach(s.app, caller, '/acme/billing')
    expect(rules).not.toHaveBeenCalled()

    // Opened again: everyone, the key without an owner and anonymous callers included.
    expect((await restrict(s.app, s.admin, '/acme/billing', { access: 'everyone' })).json()).toMatchObject({ access: 'everyone', users: [] })
    for (const caller of [s.bob, s.installKey, {}]) expect((await reach(s.app, caller, '/acme/billing')).context.status).toBe(200)
    expect(rules).toHaveBeenCalledTimes(1)
  })

  it('the default restricts libraries nobody configured, new ones included, until it is turned off', async () => {
    const s = await setUp()
    const turnOn = await s.app.inject({ method: 'PUT', url: '/api/library-access/default', headers: s.admin, payload: { restrictNewLibraries: true } })
    expect(turnOn.statusCode, turnOn.body).toBe(200)
    expect(turnOn.json()).toMatchObject({ restrictNewLibraries: true, libraries: [{ libraryId: '/acme/billing', access: 'default', effective: 'restricted' }, { libraryId: '/acme/widgets', access: 'default', effective: 'restricted' }] })
    await seedLibrary(s.app, '/acme/new', DOCS)
    for (const id of ['/acme/billing', '/acme/widgets', '/acme/new']) {
      expect((await reach(s.app, s.bobKey, id)).context.status).toBe(404)
      expect((await reach(s.app, s.adminKey, id)).context.status).toBe(200)
    }
    // A library set to everyone stays open whatever the default; a grant opens one to its user.
    await restrict(s.app, s.admin, '/acme/widgets', { access: 'everyone' })
    await restrict(s.app, s.admin, '/acme/new', { access: 'restricted', users: ['bob@example.com'] })
    expect((await reach(s.app, s.bobKey, '/acme/widgets')).context.status).toBe(200)
    expect((await reach(s.app, s.bob, '/acme/new')).context.status).toBe(200)
    expect((await reach(s.app, s.aliceKey, '/acme/new')).context.status).toBe(404)

    await s.app.inject({ method: 'PUT', url: '/api/library-access/default', headers: s.admin, payload: { restrictNewLibraries: false } })
    expect((await reach(s.app, s.bobKey, '/acme/billing')).context.status).toBe(200)
    const view = (await s.app.inject({ url: '/api/library-access', headers: s.admin })).json()
    expect(view.libraries.map((l: { libraryId: string; effective: string }) => [l.libraryId, l.effective])).toEqual([
      ['/acme/billing', 'everyone'],
      ['/acme/new', 'restricted'],
      ['/acme/widgets', 'everyone'],
    ])
  })

  it('only an admin session manages access; bad requests change nothing', async () => {
    const s = await setUp()
    const before = (await s.app.inject({ url: '/api/library-access', headers: s.admin })).json()
    expect((await restrict(s.app, s.alice, '/acme/billing', { access: 'restricted' })).statusCode).toBe(403)
    expect((await restrict(s.app, s.adminKey, '/acme/billing', { access: 'restricted' })).statusCode).toBe(401)
    expect((await s.app.inject({ url: '/api/library-access', headers: s.bob })).statusCode).toBe(403)
    expect((await s.app.inject({ method: 'PUT', url: '/api/library-access/default', payload: { restrictNewLibraries: true } })).statusCode).toBe(401)

    const unknownUser = await restrict(s.app, s.admin, '/acme/billing', { access: 'restricted', users: ['alice@example.com', 'zed@example.com'] })
    expect(unknownUser.statusCode).toBe(404)
    expect(unknownUser.json()).toMatchObject({ error: 'user_not_found', message: expect.stringContaining('zed@example.com') })
    expect((await restrict(s.app, s.admin, '/acme/nothing', { access: 'everyone' })).json().error).toBe('library_not_found')
    const usersWhenOpen = await restrict(s.app, s.admin, '/acme/billing', { access: 'everyone', users: ['alice@example.com'] })
    expect(usersWhenOpen.statusCode).toBe(400)
    expect(usersWhenOpen.json().error).toBe('validation_error')
    expect((await restrict(s.app, s.admin, '/acme/billing', { access: 'private' })).json().error).toBe('validation_error')
    expect((await s.app.inject({ url: '/api/library-access', headers: s.admin })).json()).toEqual(before)
    expect((await reach(s.app, s.bobKey, '/acme/billing')).context.status).toBe(200)
  })

  it('a namespace rule governs every library under it without a rule of its own; the longest namespace and a library\'s own rule win', async () => {
    const s = await setUp()
    await seedLibrary(s.app, '/globex/tools', { 'docs/tools.md': '# Tools\n\n## Deploy\n\nDeploy tools with the deploy command.\n\n```bash\ndeploy tools\n```\n' })
    const setNamespace = (headers: Headers, body: object) => s.app.inject({ method: 'PUT', url: '/api/library-access/namespaces', headers, payload: body })
    const statusOf = async (caller: Headers, id: string) => (await reach(s.app, caller, id)).context.status

    const set = await setNamespace(s.admin, { namespace: '/ACME/*', access: 'restricted', users: ['alice@example.com'] })
    expect(set.statusCode, set.body).toBe(200)
    expect(set.json()).toEqual({ namespace: '/acme/*', access: 'restricted', effective: 'restricted', users: [{ userId: expect.any(Number), email: 'alice@example.com' }], groups: [], libraries: 2 })
    // Closed to everyone else exactly as an unknown library is, on every path; other namespaces untouched.
    const unknown = await reach(s.app, s.bob, '/acme/nothing')
    for (const outsider of [s.bob, s.bobKey, s.installKey, {}]) {
      const seen = await reach(s.app, outsider, '/acme/billing')
      expect(seen.searchIds).not.toContain('/acme/billing')
      expect(seen.context).toEqual(unknown.context)
      expect(seen.mcp).toBe(unknown.mcp)
      expect(await statusOf(outsider, '/globex/tools')).toBe(200)
    }
    for (const insider of [s.alice, s.aliceKey, s.adminKey]) expect(await statusOf(insider, '/acme/widgets')).toBe(200)
    // A library added under it later is governed at once.
    await seedLibrary(s.app, '/acme/new', DOCS)
    expect(await statusOf(s.bobKey, '/acme/new')).toBe(404)

    // The longest namespace wins; a library's own rule wins over any namespace.
    expect((await setNamespace(s.admin, { namespace: 'acme/billing/*', access: 'everyone' })).json()).toMatchObject({ namespace: '/acme/billing/*', libraries: 1 })
    await restrict(s.app, s.admin, '/acme/new', { access: 'restricted', users: ['bob@example.com'] })
    expect(await statusOf(s.bobKey, '/acme/billing')).toBe(200)
    expect(await statusOf(s.bobKey, '/acme/widgets')).toBe(404)
    expect(await statusOf(s.bobKey, '/acme/new')).toBe(200)
    expect(await statusOf(s.aliceKey, '/acme/new')).toBe(404)
    const view = (await s.app.inject({ url: '/api/library-access', headers: s.admin })).json()
    expect(view.namespaces.map((n: { namespace: string; libraries: number }) => [n.namespace, n.libraries])).toEqual([['/acme/*', 1], ['/acme/billing/*', 1]])
    expect(view.libraries.map((l: { libraryId: string; effective: string; namespace: string | null; users: Array<{ email: string }> }) => [l.libraryId, l.effective, l.namespace, l.users.map((u) => u.email)])).toEqual([
      ['/acme/billing', 'everyone', '/acme/billing/*', []],
      ['/acme/new', 'restricted', null, ['bob@example.com']],
      ['/acme/widgets', 'restricted', '/acme/*', ['alice@example.com']],
      ['/globex/tools', 'everyone', null, []],
    ])

    // A namespace rule opens libraries that the restrictive default would close; `default` removes it.
    await s.app.inject({ method: 'PUT', url: '/api/library-access/default', headers: s.admin, payload: { restrictNewLibraries: true } })
    expect(await statusOf(s.bobKey, '/acme/billing')).toBe(200)
    expect(await statusOf(s.bobKey, '/globex/tools')).toBe(404)
    expect((await setNamespace(s.admin, { namespace: '/acme/billing/*', access: 'default' })).json()).toMatchObject({ access: 'default', effective: 'restricted', libraries: 0 })
    expect(await statusOf(s.bobKey, '/acme/billing')).toBe(404)
    expect(await statusOf(s.aliceKey, '/acme/billing')).toBe(200)
    const events = await s.app.inject({ url: '/api/audit?action=access.rule.changed', headers: s.admin })
    expect(events.json().events.map((e: { target: string }) => e.target)).toEqual(['/acme/billing/*', '/acme/new', '/acme/billing/*', '/acme/*'])
  })

  it('refuses a bad namespace rule, and a member, changing nothing', async () => {
    const s = await setUp()
    await s.app.inject({ method: 'PUT', url: '/api/library-access/namespaces', headers: s.admin, payload: { namespace: '/acme/*', access: 'restricted', groups: ['billing'] } })
    const before = (await s.app.inject({ url: '/api/library-access', headers: s.admin })).json()
    const refused = async (headers: Headers, body: object) => {
      const response = await s.app.inject({ method: 'PUT', url: '/api/library-access/namespaces', headers, payload: body })
      return { status: response.statusCode, error: response.json().error as string, message: response.json().message as string }
    }
    for (const namespace of ['/*', '/acme', '/acme/payments/v1/*', '/ac me/*', '/acme/*/*']) {
      expect(await refused(s.admin, { namespace, access: 'everyone' })).toMatchObject({ status: 400, error: 'validation_error', message: expect.stringContaining('Expected /owner/* or /owner/name/*') })
    }
    expect((await refused(s.admin, { namespace: '/*', access: 'everyone' })).message).toContain('workspace default')
    expect(await refused(s.admin, { namespace: '/acme/*', access: 'everyone', groups: ['billing'] })).toMatchObject({ status: 400, error: 'validation_error' })
    expect(await refused(s.admin, { namespace: '/acme/*', access: 'restricted', users: ['zed@example.com'] })).toMatchObject({ status: 404, error: 'user_not_found' })
    expect(await refused(s.admin, { namespace: '/acme/*', access: 'restricted', extra: 1 })).toMatchObject({ status: 400, error: 'validation_error' })
    expect((await refused(s.alice, { namespace: '/acme/*', access: 'everyone' })).status).toBe(403)
    expect((await refused(s.adminKey, { namespace: '/acme/*', access: 'everyone' })).status).toBe(401)
    expect((await s.app.inject({ url: '/api/library-access', headers: s.admin })).json()).toEqual(before)
    expect(before.namespaces).toEqual([{ namespace: '/acme/*', access: 'restricted', effective: 'restricted', users: [], groups: ['billing'], libraries: 2 }])
  })

  it('is on-premise only: the cloud answers 404', async () => {
    const app = await buildTestApp({ mode: 'cloud', startWorker: false })
    const admin = cookie(await signIn(app, 'admin'))
    expect((await app.inject({ url: '/api/library-access', headers: admin })).statusCode).toBe(404)
  })
})
