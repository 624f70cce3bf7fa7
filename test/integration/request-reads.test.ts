/**
 * What a /v2/context request reads from the database once its library is resolved (issue 11): one
 * statement, the catalogue version. The API key, the on-premise access rules and their default, a
 * teamspace's plan and policy and the resolved library are cached against that version, which
 * every change to them moves (migrations 0012, 0016, 0021), whichever connection makes it: a
 * change made by another one (a CLI command, another serving process) is seen at the next request.
 */
import type { FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { ANONYMOUS } from '../../src/library/access.js'
import type { Db } from '../../src/store/db.js'
import { openStore, sqliteOf, type Store } from '../../src/store/index.js'
import { SYSTEM } from '../../src/audit/log.js'
import { setRestrictNewLibraries } from '../../src/tenancy/library-access.js'
import { createCallerSettler } from '../../src/library/visibility.js'
import { applyPatch } from '../../src/tenancy/policies.js'
import { defaultPolicy } from '../../src/store/policies.js'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'

const DOCS = { 'docs/deploy.md': '# Billing\n\n## Deploy\n\nDeploy the billing service with the deploy script and a release tag.\n\n```bash\n./deploy.sh v1\n```\n' }
const CONTEXT = '/api/v2/context?libraryId=/acme/billing&query=deploy%20a%20release'
const CATALOG_READ = 'SELECT version FROM catalog_version WHERE id = 1'
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

const others: Store[] = []
afterEach(async () => {
  for (const store of others.splice(0)) await store.close()
  vi.useRealTimers()
})

/** Another connection to the app's data directory, as a CLI command or another serving process opens one. */
async function otherConnection(app: FastifyInstance): Promise<Store> {
  const other = await openStore(app.runtime.store.paths.root)
  others.push(other)
  return other
}

/**
 * The SQL of every statement the app's connection runs from now on. The clock stands still (the
 * engine's once-a-second check of loaded sets and a key's once-a-minute last-use stamp would
 * otherwise run by chance) and the usage counts' timed flush is held.
 */
function recordStatements(app: FastifyInstance): string[] {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() })
  vi.spyOn(app.runtime.usage, 'flush').mockImplementation(async () => {})
  const db: Db = sqliteOf(app.runtime.store)
  const statement = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>
  const seen: string[] = []
  for (const method of ['get', 'all', 'run', 'iterate']) {
    const original = statement[method]
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      seen.push(this.source)
      return original.apply(this, args)
    }
    onTestFinished(() => {
      statement[method] = original
    })
  }
  return seen
}

async function ask(app: FastifyInstance, headers: Record<string, string> = {}, status = 200) {
  const response = await app.inject({ url: CONTEXT, headers })
  expect(response.statusCode, response.body).toBe(status)
  if (status === 200) expect(response.body).toContain('deploy.sh v1')
  return response
}

describe('one /v2/context request', () => {
  it("on-premise, anonymous or with a key (the install's, a member's, an admin's), reads the catalogue version and nothing else", async () => {
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/acme/billing', DOCS)
    // A restricted library, so the access rules have something to say.
    await seedLibrary(app, '/acme/secret', DOCS)
    await app.runtime.store.libraryAccess.set((await app.runtime.store.libraries.byId('/acme/secret'))!.pk, 'restricted', [], [])
    const { users, keys } = app.runtime.store
    const userKey = async (email: string, role: 'admin' | 'member') => {
      const user = await users.create({ email, password: 'correct horse battery staple', role })
      return bearer((await keys.create(email, { userId: user.id, teamId: null })).key)
    }
    const callers = [{}, bearer(await createKey(app)), await userKey('alice@example.com', 'member'), await userKey('root@example.com', 'admin')]
    for (const headers of callers) await ask(app, headers)

    const seen = recordStatements(app)
    for (let i = 0; i < 3; i++) for (const headers of callers) await ask(app, headers)
    expect(seen).toEqual(Array(12).fill(CATALOG_READ))
  })

  it("in the cloud, with a teamspace's key under a policy and a plan, reads the catalogue version and nothing else", async () => {
    const app = await buildTestApp({ startWorker: false, mode: 'cloud', rateLimit: { anonymous: 100, keyed: 100, windowSeconds: 3600 } })
    await seedLibrary(app, '/acme/billing', DOCS)
    const { users, teams, keys, policies } = app.runtime.store
    const owner = await users.create({ email: 'owner@acme.example', password: 'correct horse battery staple', role: 'member' })
    const team = await teams.create({ name: 'Acme', ownerUserId: owner.id, plan: 'pro' })
    await policies.set(team.id, applyPatch(defaultPolicy(), { libraryFilters: { mode: 'quality', quality: { blockedLibraries: { add: ['/acme/other'] } } } }))
    const key = bearer((await keys.create('acme', { userId: owner.id, teamId: team.id })).key)
    await ask(app, key)

    const seen = recordStatements(app)
    for (let i = 0; i < 3; i++) expect((await ask(app, key)).headers['ratelimit-limit']).toBe('500')
    expect(seen).toEqual(Array(3).fill(CATALOG_READ))
  })
})

describe('a change made by another connection is seen at the next request', () => {
  it('on-premise: the workspace default restricting the library, then lifted; the key revoked', async () => {
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/acme/billing', DOCS)
    const created = await app.runtime.store.keys.create('ci')
    await ask(app)
    await ask(app, bearer(created.key))
    const other = await otherConnection(app)

    await setRestrictNewLibraries(other, SYSTEM, true)
    expect((await ask(app, {}, 404)).json()).toMatchObject({ error: 'library_not_found' })
    await setRestrictNewLibraries(other, SYSTEM, false)
    await ask(app)

    await other.keys.revoke(created.id)
    expect((await ask(app, bearer(created.key), 401)).json()).toMatchObject({ error: 'invalid_api_key' })
  })

  it("in the cloud: the teamspace's policy and plan", async () => {
    const app = await buildTestApp({ startWorker: false, mode: 'cloud', rateLimit: { anonymous: 100, keyed: 100, windowSeconds: 3600 } })
    await seedLibrary(app, '/acme/billing', DOCS)
    const { users, teams, keys } = app.runtime.store
    const owner = await users.create({ email: 'owner@acme.example', password: 'correct horse battery staple', role: 'member' })
    const team = await teams.create({ name: 'Acme', ownerUserId: owner.id, plan: 'pro' })
    const key = bearer((await keys.create('acme', { userId: owner.id, teamId: team.id })).key)
    expect((await ask(app, key)).headers['ratelimit-limit']).toBe('500')
    const other = await otherConnection(app)

    await other.policies.set(team.id, applyPatch(defaultPolicy(), { libraryFilters: { mode: 'quality', quality: { blockedLibraries: { add: ['/acme/billing'] } } } }))
    expect((await ask(app, key, 403)).json()).toMatchObject({ error: 'access_denied' })
    await other.policies.set(team.id, defaultPolicy())
    await ask(app, key)

    await other.teams.setPlan(team.id, 'enterprise')
    expect((await ask(app, key)).headers['ratelimit-limit']).toBe('2000')
  })
})

describe('the caller settler (on-premise library access control)', () => {
  it('reads the catalogue version itself when the request has not, and the rules and default only when it moved', async () => {
    const app = await buildTestApp({ startWorker: false })
    const { libraryPk } = await seedLibrary(app, '/acme/billing', DOCS)
    const { store } = app.runtime
    const settle = createCallerSettler(store, 'onprem')
    const reads = { version: vi.spyOn(store, 'catalogVersion'), rules: vi.spyOn(store.libraryAccess, 'facts'), settings: vi.spyOn(store.settings, 'get') }
    for (let i = 0; i < 3; i++) expect(await settle(ANONYMOUS)).toMatchObject({ kind: 'anonymous', closed: new Set() })
    expect(reads.version).toHaveBeenCalledTimes(3)
    expect(reads.rules).toHaveBeenCalledTimes(1)
    expect(reads.settings).toHaveBeenCalledTimes(1)
    await setRestrictNewLibraries(store, SYSTEM, true)
    expect(await settle(ANONYMOUS)).toMatchObject({ closed: new Set([libraryPk]) })
    expect(reads.rules).toHaveBeenCalledTimes(2)
  })

  it("in the cloud: settles a teamspace key's policy, read against the request's catalogue version, and nothing on the operator's key or on sessions", async () => {
    const app = await buildTestApp({ startWorker: false, mode: 'cloud' })
    const { users, teams, keys, policies } = app.runtime.store
    const owner = await users.create({ email: 'owner@acme.example', password: 'correct horse battery staple', role: 'member' })
    const team = await teams.create({ name: 'Acme', ownerUserId: owner.id, plan: 'pro' })
    const teamKey = { kind: 'api-key', keyId: (await keys.create('acme', { userId: owner.id, teamId: team.id })).id, userId: owner.id, teamId: team.id, insider: false } as const
    const operatorKey = { ...teamKey, userId: null, teamId: null, insider: true }
    const settle = createCallerSettler(app.runtime.store, 'cloud')
    // The default policy filters nothing: the key is settled with none.
    expect(await settle(teamKey)).toMatchObject({ policy: null })
    const blocking = applyPatch(defaultPolicy(), { libraryFilters: { mode: 'quality', quality: { blockedLibraries: { add: ['/acme/billing'] } } } })
    await policies.set(team.id, blocking)
    const read = vi.spyOn(policies, 'of')
    const version = app.runtime.store.catalogVersion()
    expect(await settle(teamKey, version)).toMatchObject({ policy: blocking })
    expect(await settle(teamKey, version)).toMatchObject({ policy: blocking })
    expect(read).toHaveBeenCalledTimes(2)
    expect(read.mock.calls.every(([teamPk, at]) => teamPk === team.id && at === version)).toBe(true)
    expect(await settle(operatorKey, version)).not.toHaveProperty('policy')
    expect(await settle({ kind: 'session', userId: owner.id, role: 'member', teamIds: [team.id], insider: false }, version)).not.toHaveProperty('policy')
    expect(read).toHaveBeenCalledTimes(2)
  })
})
