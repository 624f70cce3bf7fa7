/**
 * A teamspace's policies and libraries for the signed-in dashboard (cloud mode): GET, PATCH and
 * the preview under /api/teams/:team/policies, with each role, a non-member, a refused body (an
 * unknown field is 400, never dropped) and a preview that stores nothing; the API-key route
 * (/api/v2/policies) refuses a misspelt key the same way. Then /api/teams/:team/libraries: the
 * teamspace's own libraries and the public ones its policy lets through.
 */
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { signIn } from '../helpers/session.js'
import { bearer, createTenants, type Tenants } from '../helpers/tenants.js'
import { suiteTeardown } from '../helpers/tmp.js'
import { sqliteOf } from '../../src/store/index.js'

const defer = suiteTeardown()
const DOCS = { 'docs/guide.md': '# Guide\n\n## Mount a widget\n\nMount a widget into an element with render:\n\n```js\nrender(el, { kind: "gauge" })\n```\n' }

let app: FastifyInstance
let tenants: Tenants
let cookies: { owner: { lectern_session: string }; admin: { lectern_session: string }; developer: { lectern_session: string }; outsider: { lectern_session: string } }

const policiesUrl = (teamPk: number) => `/api/teams/${teamPk}/policies`
const get = (teamPk: number, cookie: { lectern_session: string }) => app.inject({ url: policiesUrl(teamPk), cookies: cookie })
const patch = (teamPk: number, cookie: { lectern_session: string }, payload: object) => app.inject({ method: 'PATCH', url: policiesUrl(teamPk), cookies: cookie, payload })
const preview = (teamPk: number, cookie: { lectern_session: string }, payload: object) =>
  app.inject({ method: 'POST', url: `${policiesUrl(teamPk)}/preview`, cookies: cookie, payload })
const storedPolicy = (teamPk: number) => sqliteOf(app.runtime.store).prepare<[number], { policies: string | null }>('SELECT policies FROM teams WHERE pk = ?').get(teamPk)!.policies

const ACME_OWN = '/acme/internal--t1'
const BETA_OWN = '/beta/secret--t2'

const selectOnly = (...ids: string[]) => ({ libraryFilters: { mode: 'select', select: { allowedLibraries: { add: ids } } } })

beforeAll(async () => {
  app = await buildTestApp({ mode: 'cloud', startWorker: false, defer })
  tenants = await createTenants(app)
  expect([tenants.acme.teamPk, tenants.beta.teamPk]).toEqual([1, 2])
  const { libraries } = app.runtime.store
  await libraries.create({ id: ACME_OWN, title: 'internal', sourceKind: 'git', sourceUrl: 'https://git.acme.example/acme/internal.git', isPrivate: true, teamPk: tenants.acme.teamPk })
  await libraries.create({ id: BETA_OWN, title: 'secret', sourceKind: 'git', sourceUrl: 'https://git.beta.example/beta/secret.git', isPrivate: true, teamPk: tenants.beta.teamPk })
  await libraries.create({ id: '/ops/runbooks', title: 'runbooks', sourceKind: 'git', sourceUrl: 'https://git.ops.example/ops/runbooks.git', isPrivate: true })
  for (const id of ['/acme/router', '/acme/store', '/acme/forms', ACME_OWN, BETA_OWN, '/ops/runbooks']) await seedLibrary(app, id, DOCS)
  cookies = {
    owner: await signIn(app, 'member', 'owner@acme.example'),
    admin: await signIn(app, 'member', 'admin@acme.example'),
    developer: await signIn(app, 'member', 'dev@acme.example'),
    outsider: await signIn(app, 'member', 'owner@beta.example'),
  }
})

describe('GET /api/teams/:team/policies', () => {
  it('answers every member the policy with its accessible library count', async () => {
    for (const cookie of [cookies.owner, cookies.admin, cookies.developer]) {
      const res = await get(tenants.acme.teamPk, cookie)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json()).toMatchObject({ libraryFilters: { mode: null }, sourceTypes: { public_repos: { enabled: true } }, accessibleLibraryCount: 3 })
    }
  })

  it('is 404 team_not_found for a non-member, as for a teamspace that does not exist, and 401 without a session', async () => {
    const other = await get(tenants.acme.teamPk, cookies.outsider)
    expect(other.statusCode).toBe(404)
    expect(other.json()).toEqual({ error: 'team_not_found', message: `No teamspace ${tenants.acme.teamPk} of yours.` })
    expect((await get(9999, cookies.owner)).json()).toEqual({ error: 'team_not_found', message: 'No teamspace 9999 of yours.' })
    expect((await app.inject({ url: policiesUrl(tenants.acme.teamPk), headers: bearer(tenants.acme.keys.owner) })).statusCode).toBe(401)
  })
})

describe('POST /api/teams/:team/policies/preview', () => {
  it('answers the policy a change would give and its count, storing nothing', async () => {
    const before = storedPolicy(tenants.acme.teamPk)
    const res = await preview(tenants.acme.teamPk, cookies.admin, selectOnly('/acme/router'))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ libraryFilters: { mode: 'select', select: { allowedLibraries: ['/acme/router'] } }, accessibleLibraryCount: 1 })
    expect(storedPolicy(tenants.acme.teamPk)).toBe(before)
    expect((await get(tenants.acme.teamPk, cookies.owner)).json()).toMatchObject({ libraryFilters: { mode: null }, accessibleLibraryCount: 3 })
  })

  it("is 403 forbidden for a developer and 404 for a non-member; a bad body is the PATCH's 400", async () => {
    const developer = await preview(tenants.acme.teamPk, cookies.developer, selectOnly('/acme/router'))
    expect(developer.statusCode).toBe(403)
    expect(developer.json()).toEqual({ error: 'forbidden', message: 'As developer you may not manage library access (owners and admins only).' })
    expect((await preview(tenants.acme.teamPk, cookies.outsider, selectOnly('/acme/router'))).json()).toMatchObject({ error: 'team_not_found' })
    const bad = await preview(tenants.acme.teamPk, cookies.owner, selectOnly('not a library'))
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ error: 'validation_error' })
  })
})

describe('PATCH /api/teams/:team/policies', () => {
  it("saves an owner's and an admin's change, which the team's keys then go by", async () => {
    const saved = await patch(tenants.acme.teamPk, cookies.owner, selectOnly('/acme/router', '/acme/store'))
    expect(saved.statusCode, saved.body).toBe(200)
    expect(saved.json()).toMatchObject({ libraryFilters: { mode: 'select', select: { allowedLibraries: ['/acme/router', '/acme/store'] } }, accessibleLibraryCount: 2 })
    const removed = await patch(tenants.acme.teamPk, cookies.admin, { libraryFilters: { select: { allowedLibraries: { remove: ['/acme/store'] } } } })
    expect(removed.json()).toMatchObject({ accessibleLibraryCount: 1 })
    const viaKey = await app.inject({ url: '/api/v2/policies', headers: bearer(tenants.acme.keys.developer) })
    expect(viaKey.json()).toMatchObject({ libraryFilters: { select: { allowedLibraries: ['/acme/router'] } }, accessibleLibraryCount: 1 })
    const search = await app.inject({ url: '/api/v2/libs/search?libraryName=acme', headers: bearer(tenants.acme.keys.developer) })
    expect(search.json().results.map((r: { id: string }) => r.id).sort()).toEqual([ACME_OWN, '/acme/router'])
    // Another teamspace is untouched.
    expect((await app.inject({ url: '/api/v2/policies', headers: bearer(tenants.beta.keys.owner) })).json()).toMatchObject({ libraryFilters: { mode: null } })
  })

  it('is 403 forbidden for a developer and 404 for a non-member, changing nothing', async () => {
    const before = storedPolicy(tenants.acme.teamPk)
    const developer = await patch(tenants.acme.teamPk, cookies.developer, { libraryFilters: { mode: null } })
    expect(developer.statusCode).toBe(403)
    expect(developer.json()).toMatchObject({ error: 'forbidden' })
    const outsider = await patch(tenants.acme.teamPk, cookies.outsider, { libraryFilters: { mode: null } })
    expect(outsider.statusCode).toBe(404)
    expect(outsider.json()).toMatchObject({ error: 'team_not_found' })
    expect(storedPolicy(tenants.acme.teamPk)).toBe(before)
  })

  it('refuses an unknown (misspelt) field with 400 validation_error naming it, here and on /api/v2/policies, changing nothing', async () => {
    const before = storedPolicy(tenants.acme.teamPk)
    const misspelt = { libraryFilters: { mode: null, qualty: { requireVerified: true } } }
    for (const res of [
      await patch(tenants.acme.teamPk, cookies.owner, misspelt),
      await preview(tenants.acme.teamPk, cookies.owner, misspelt),
      await app.inject({ method: 'PATCH', url: '/api/v2/policies', headers: bearer(tenants.acme.keys.owner), payload: misspelt }),
    ]) {
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json()).toEqual({ error: 'validation_error', message: 'Field libraryFilters has a field it does not take: "qualty".' })
    }
    const topLevel = await patch(tenants.acme.teamPk, cookies.owner, { sourceTypes: { disable: ['websites'] }, sourcetypes: {} })
    expect(topLevel.json()).toEqual({ error: 'validation_error', message: 'The body has a field it does not take: "sourcetypes".' })
    expect(storedPolicy(tenants.acme.teamPk)).toBe(before)
  })
})

describe('GET /api/teams/:team/libraries', () => {
  const rows = async (teamPk: number, cookie: { lectern_session: string }) => {
    const res = await app.inject({ url: `/api/teams/${teamPk}/libraries`, cookies: cookie })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().libraries.map((r: { id: string; owned: boolean; allowed: boolean; state: string }) => [r.id, r.owned, r.allowed, r.state])
  }

  it("lists the teamspace's own libraries and the public ones its policy lets through, to every member", async () => {
    expect((await patch(tenants.acme.teamPk, cookies.owner, { libraryFilters: { mode: null } })).statusCode).toBe(200)
    for (const cookie of [cookies.owner, cookies.developer]) {
      expect(await rows(tenants.acme.teamPk, cookie)).toEqual([
        ['/acme/forms', false, true, 'finalized'],
        [ACME_OWN, true, true, 'finalized'],
        ['/acme/router', false, true, 'finalized'],
        ['/acme/store', false, true, 'finalized'],
      ])
    }
    await patch(tenants.acme.teamPk, cookies.owner, { sourceTypes: { disable: ['private_sources'] }, ...selectOnly('/acme/router') })
    expect(await rows(tenants.acme.teamPk, cookies.developer)).toEqual([
      [ACME_OWN, true, false, 'finalized'],
      ['/acme/router', false, true, 'finalized'],
    ])
    expect((await rows(tenants.beta.teamPk, cookies.outsider)).map((r: unknown[]) => r[0])).toEqual(['/acme/forms', '/acme/router', '/acme/store', BETA_OWN])
  })

  it('is 404 team_not_found for a non-member', async () => {
    const res = await app.inject({ url: `/api/teams/${tenants.beta.teamPk}/libraries`, cookies: cookies.owner })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toMatchObject({ error: 'team_not_found' })
  })
})
