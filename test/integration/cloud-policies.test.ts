/**
 * Teamspace policies through the interfaces a tenant touches: GET and PATCH /api/v2/policies with
 * the reference's shapes and roles, and their effect on search, context and MCP for the
 * teamspace's keys only (other teamspaces, anonymous callers and the operator are not filtered).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FastifyInstance } from 'fastify'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { bearer, createTenants, type Tenants } from '../helpers/tenants.js'
import { suiteTeardown } from '../helpers/tmp.js'
import { sqlOf } from '../../src/store/index.js'

const defer = suiteTeardown()
const DOCS = { 'docs/guide.md': '# Guide\n\n## Mount a widget\n\nMount a widget into an element with render:\n\n```js\nrender(el, { kind: "gauge" })\n```\n' }

let app: FastifyInstance
let base: string
let tenants: Tenants
/** Acme's own private library. */
const ACME_PRIVATE = '/acme/internal--t1'

const DEFAULT_POLICY = {
  sourceTypes: {
    public_repos: { enabled: true },
    private_sources: { enabled: true },
    confluence: { enabled: true },
    uploaded_files: { enabled: true },
    websites: { enabled: true },
    llmstxt: { enabled: true },
  },
  libraryFilters: {
    mode: null,
    quality: {
      requireVerified: false,
      minTrustScore: null,
      maxAgeDays: null,
      blockedLibraries: [],
      exceptedLibraries: [],
      repoFilters: { minStars: null, allowedLicenses: [] },
      websiteFilters: { minBacklinks: null, minReferringDomains: null, minOrganicTraffic: null },
    },
    select: { allowedLibraries: [] },
  },
}

const getPolicies = (key?: string) => app.inject({ url: '/api/v2/policies', headers: key ? bearer(key) : {} })
const patchPolicies = (key: string, payload: unknown) => app.inject({ method: 'PATCH', url: '/api/v2/policies', headers: bearer(key), payload: payload as object })
const context = (libraryId: string, key?: string) => app.inject({ url: `/api/v2/context?libraryId=${libraryId}&query=mount+a+widget`, headers: key ? bearer(key) : {} })
const searchIds = async (name: string, key?: string): Promise<string[]> => {
  const res = await app.inject({ url: `/api/v2/libs/search?libraryName=${name}`, headers: key ? bearer(key) : {} })
  return res.statusCode === 200 ? res.json().results.map((r: { id: string }) => r.id) : []
}

beforeAll(async () => {
  app = await buildTestApp({ mode: 'cloud', startWorker: false, defer })
  base = await app.listen({ port: 0, host: '127.0.0.1' })
  tenants = await createTenants(app)
  expect(tenants.acme.teamPk).toBe(1)
  const { libraries } = app.runtime.store
  await libraries.create({ id: '/websites/widgets-docs', title: 'widgets docs', sourceKind: 'website', sourceUrl: 'https://docs.widgets.example/' })
  await libraries.create({ id: ACME_PRIVATE, title: 'internal widgets', sourceKind: 'git', sourceUrl: 'https://git.acme.example/acme/internal.git', isPrivate: true, teamPk: tenants.acme.teamPk })
  for (const id of ['/acme/widgets', '/acme/gadgets', '/websites/widgets-docs', ACME_PRIVATE]) await seedLibrary(app, id, DOCS)
  await sqlOf(app.runtime.store).run('UPDATE libraries SET trust_score = 3 WHERE id = ?', ['/acme/gadgets'])
})

// Each test starts from the defaults; an owner's PATCH is what sets them back.
beforeEach(async () => {
  await app.runtime.store.policies.set(tenants.acme.teamPk, JSON.parse(JSON.stringify(DEFAULT_POLICY)))
})

describe('GET /api/v2/policies', () => {
  it("answers every member's key with the defaults and the public libraries' count", async () => {
    for (const key of Object.values(tenants.acme.keys)) {
      const res = await getPolicies(key)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ ...DEFAULT_POLICY, accessibleLibraryCount: 3 })
    }
  })

  it('is 401 without a key and 404 team_not_found for a key of no teamspace', async () => {
    expect((await getPolicies()).json()).toMatchObject({ error: 'invalid_api_key' })
    const res = await getPolicies(await createKey(app))
    expect(res.statusCode).toBe(404)
    expect(res.json()).toMatchObject({ error: 'team_not_found' })
  })

  it('does not exist on-premise', async () => {
    const onprem = await buildTestApp({ startWorker: false })
    expect((await onprem.inject({ url: '/api/v2/policies', headers: bearer(await createKey(onprem)) })).statusCode).toBe(404)
  })
})

describe('PATCH /api/v2/policies', () => {
  it('is 403 forbidden for a developer, changing nothing', async () => {
    const res = await patchPolicies(tenants.acme.keys.developer, { sourceTypes: { disable: ['websites'] } })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ error: 'forbidden' })
    expect((await getPolicies(tenants.acme.keys.owner)).json().sourceTypes.websites).toEqual({ enabled: true })
  })

  it('applies the reference\'s combined example for an admin, changing only what it names', async () => {
    const res = await patchPolicies(tenants.acme.keys.admin, {
      sourceTypes: { enable: ['websites'], disable: ['confluence'] },
      libraryFilters: {
        mode: 'quality',
        quality: {
          minTrustScore: 4,
          maxAgeDays: 365,
          blockedLibraries: { add: ['/org/repo'], remove: ['/org/old-repo'] },
          repoFilters: { minStars: 100 },
          websiteFilters: { minBacklinks: 100 },
        },
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body.sourceTypes).toEqual({ ...DEFAULT_POLICY.sourceTypes, confluence: { enabled: false } })
    expect(body.libraryFilters.quality).toEqual({
      ...DEFAULT_POLICY.libraryFilters.quality,
      minTrustScore: 4,
      maxAgeDays: 365,
      blockedLibraries: ['/org/repo'],
      repoFilters: { minStars: 100, allowedLicenses: [] },
      websiteFilters: { minBacklinks: 100, minReferringDomains: null, minOrganicTraffic: null },
    })
    // Unknown stars and backlinks clear no threshold: no public library is left.
    expect(body.accessibleLibraryCount).toBe(0)
    expect((await getPolicies(tenants.acme.keys.developer)).json()).toEqual(body)
  })

  it.each([
    ['the same source type enabled and disabled', { sourceTypes: { enable: ['websites'], disable: ['websites'] } }],
    ['an entry both added and removed', { libraryFilters: { quality: { blockedLibraries: { add: ['/a/b'], remove: ['/a/b'] } } } }],
    ['clear with add', { libraryFilters: { select: { allowedLibraries: { clear: true, add: ['/a/b'] } } } }],
    ['an unknown source type', { sourceTypes: { disable: ['ftp'] } }],
    ['a trust score over 10', { libraryFilters: { quality: { minTrustScore: 11 } } }],
    ['a zero maxAgeDays', { libraryFilters: { quality: { maxAgeDays: 0 } } }],
    ['an unknown mode', { libraryFilters: { mode: 'all' } }],
    ['a license outside SPDX characters', { libraryFilters: { quality: { repoFilters: { allowedLicenses: { add: ['MIT License'] } } } } }],
    ['an entry that is no library path or domain', { libraryFilters: { select: { allowedLibraries: { add: ['not a library'] } } } }],
    ['an empty body', {}],
  ])('refuses %s with 400 validation_error, changing nothing', async (_, payload) => {
    const res = await patchPolicies(tenants.acme.keys.owner, payload)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toMatchObject({ error: 'validation_error' })
    expect((await getPolicies(tenants.acme.keys.owner)).json()).toEqual({ ...DEFAULT_POLICY, accessibleLibraryCount: 3 })
  })

  it('keeps both of two changes sent at once: each reads the policy the other wrote', async () => {
    const [websites, confluence] = await Promise.all([
      patchPolicies(tenants.acme.keys.owner, { sourceTypes: { disable: ['websites'] } }),
      patchPolicies(tenants.acme.keys.admin, { sourceTypes: { disable: ['confluence'] } }),
    ])
    expect([websites.statusCode, confluence.statusCode]).toEqual([200, 200])
    const { sourceTypes } = (await getPolicies(tenants.acme.keys.owner)).json()
    expect([sourceTypes.websites, sourceTypes.confluence]).toEqual([{ enabled: false }, { enabled: false }])
  })

  it('mode null clears the filter; clear empties a list', async () => {
    await patchPolicies(tenants.acme.keys.owner, { libraryFilters: { mode: 'select', select: { allowedLibraries: { add: ['/acme/widgets', 'widgets.example'] } } } })
    expect((await getPolicies(tenants.acme.keys.owner)).json().accessibleLibraryCount).toBe(2)
    const cleared = (await patchPolicies(tenants.acme.keys.owner, { libraryFilters: { mode: null } })).json()
    expect(cleared.libraryFilters).toMatchObject({ mode: null, select: { allowedLibraries: ['/acme/widgets', 'widgets.example'] } })
    expect(cleared.accessibleLibraryCount).toBe(3)
    const emptied = (await patchPolicies(tenants.acme.keys.owner, { libraryFilters: { select: { allowedLibraries: { clear: true } } } })).json()
    expect(emptied.libraryFilters.select.allowedLibraries).toEqual([])
  })
})

describe("a teamspace's requests go through its policy", () => {
  it('select mode: context of a library outside it is 403 access_denied and search omits it', async () => {
    await patchPolicies(tenants.acme.keys.owner, { libraryFilters: { mode: 'select', select: { allowedLibraries: { add: ['/acme/widgets'] } } } })
    const key = tenants.acme.keys.developer
    expect((await context('/acme/widgets', key)).statusCode).toBe(200)
    const denied = await context('/acme/gadgets', key)
    expect(denied.statusCode).toBe(403)
    expect(denied.json()).toMatchObject({ error: 'access_denied' })
    expect(await searchIds('widgets', key)).toEqual(expect.arrayContaining(['/acme/widgets', ACME_PRIVATE]))
    expect(await searchIds('widgets', key)).not.toContain('/websites/widgets-docs')
    expect(await searchIds('gadgets', key)).not.toContain('/acme/gadgets')
    // Its own private library answers to the source types only.
    expect((await context(ACME_PRIVATE, key)).statusCode).toBe(200)
  })

  it('leaves other teamspaces and anonymous callers unfiltered, and a hidden library stays 404 for them', async () => {
    await patchPolicies(tenants.acme.keys.owner, { libraryFilters: { mode: 'select', select: { allowedLibraries: { add: ['/acme/widgets'] } } } })
    expect((await context('/acme/gadgets', tenants.beta.keys.developer)).statusCode).toBe(200)
    expect((await context('/acme/gadgets')).statusCode).toBe(200)
    expect(await searchIds('gadgets', tenants.beta.keys.owner)).toContain('/acme/gadgets')
    expect((await context(ACME_PRIVATE, tenants.beta.keys.owner)).json()).toMatchObject({ error: 'library_not_found' })
  })

  it('a disabled source type removes its libraries; a policy never turns an invisible library into 403', async () => {
    await patchPolicies(tenants.acme.keys.owner, { sourceTypes: { disable: ['websites', 'private_sources'] } })
    const key = tenants.acme.keys.owner
    expect((await context('/websites/widgets-docs', key)).json()).toMatchObject({ error: 'access_denied' })
    expect((await context(ACME_PRIVATE, key)).json()).toMatchObject({ error: 'access_denied' })
    const found = await searchIds('widgets', key)
    expect(found).toContain('/acme/widgets')
    expect(found).not.toContain('/websites/widgets-docs')
    expect(found).not.toContain(ACME_PRIVATE)
    expect((await context('/no/such-library', key)).json()).toMatchObject({ error: 'library_not_found' })
  })

  it('quality mode: the trust score, the blocked list (by domain) and the excepted list', async () => {
    await patchPolicies(tenants.acme.keys.owner, {
      libraryFilters: { mode: 'quality', quality: { minTrustScore: 5, blockedLibraries: { add: ['widgets.example'] }, exceptedLibraries: { add: ['/acme/gadgets'] } } },
    })
    const key = tenants.acme.keys.admin
    expect((await context('/acme/widgets', key)).statusCode).toBe(200)
    expect((await context('/websites/widgets-docs', key)).json()).toMatchObject({ error: 'access_denied' })
    expect((await context('/acme/gadgets', key)).statusCode).toBe(200)
    await patchPolicies(tenants.acme.keys.owner, { libraryFilters: { quality: { exceptedLibraries: { remove: ['/acme/gadgets'] } } } })
    expect((await context('/acme/gadgets', key)).json()).toMatchObject({ error: 'access_denied' })
    expect((await getPolicies(key)).json().accessibleLibraryCount).toBe(1)
  })

  it('MCP: query-docs says access is denied and resolve-library-id omits the library', async () => {
    await patchPolicies(tenants.acme.keys.owner, { libraryFilters: { mode: 'select', select: { allowedLibraries: { add: ['/acme/widgets'] } } } })
    const client = new Client({ name: 'lectern-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(tenants.acme.keys.developer) } }))
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; isError?: boolean }
        return { text: result.content.map((c) => c.text).join('\n'), isError: result.isError === true }
      }
      const denied = await call('query-docs', { libraryId: '/acme/gadgets', query: 'mount a widget' })
      expect(denied.isError).toBe(true)
      expect(denied.text).toMatch(/not among the libraries your teamspace's policies allow/)
      expect((await call('query-docs', { libraryId: '/acme/widgets', query: 'mount a widget' })).text).toContain('render(el')
      const resolved = await call('resolve-library-id', { libraryName: 'widgets' })
      expect(resolved.text).toContain('/acme/widgets')
      expect(resolved.text).not.toContain('/websites/widgets-docs')
    } finally {
      await client.close()
    }
  })
})
