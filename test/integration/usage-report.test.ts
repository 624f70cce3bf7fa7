/** `GET /api/usage` (the dashboard's Usage page): who may read it, what it counts, and bad windows. */
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { usageReport } from '../../src/usage/report.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { suiteTeardown } from '../helpers/tmp.js'

const PASSWORD = 'correct horse battery staple'
const DOCS = { 'README.md': '# Widgets\n\n## Register a route\n\nCall `app.get(path, handler)` to register a route.\n\n```js\napp.get("/", h)\n```\n' }

async function sessionOf(app: FastifyInstance, email: string, role: 'admin' | 'member'): Promise<string> {
  await app.runtime.store.users.create({ email, password: PASSWORD, role })
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } })
  return /lectern_session=([\w-]+)/.exec(login.headers['set-cookie'] as string)![1]!
}

describe('GET /api/usage', () => {
  const defer = suiteTeardown()
  let app: FastifyInstance
  let admin: string
  let member: string

  beforeAll(async () => {
    app = await buildTestApp({ defer })
    await seedLibrary(app, '/acme/widgets', DOCS)
    await seedLibrary(app, '/acme/gadgets', DOCS)
    admin = await sessionOf(app, 'ops@example.com', 'admin')
    member = await sessionOf(app, 'dev@example.com', 'member')
  })

  const ask = (libraryId: string, type: 'txt' | 'json', source?: string) =>
    app.inject({
      url: `/api/v2/context?libraryId=${encodeURIComponent(libraryId)}&query=register%20a%20route&type=${type}`,
      headers: source ? { 'x-context7-source': source } : {},
    })

  it('needs an admin session: 401 without one, 403 for a member', async () => {
    const anonymous = await app.inject({ url: '/api/usage?days=7' })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json().error).toBe('not_authenticated')
    const asMember = await app.inject({ url: '/api/usage?days=7', cookies: { lectern_session: member } })
    expect(asMember.statusCode).toBe(403)
    expect(asMember.json().error).toBe('forbidden')
  })

  it('refuses a window other than 7, 30 or 90 days with 400', async () => {
    for (const days of ['', '8', '365', 'week', '7.5', '-7']) {
      const res = await app.inject({ url: `/api/usage?days=${days}`, cookies: { lectern_session: admin } })
      expect(res.statusCode, days).toBe(400)
      expect(res.json().error).toBe('validation_error')
    }
    const none = await app.inject({ url: '/api/usage', cookies: { lectern_session: admin } })
    expect(none.statusCode).toBe(400)
  })

  it('counts the requests just made per day, library, transport and client, pending counts included', async () => {
    const before = (await app.inject({ url: '/api/usage?days=7', cookies: { lectern_session: admin } })).json()
    expect(before.totals.requests).toBe(0)
    expect(before.byDay).toHaveLength(7)
    expect(before.byLibrary).toEqual([])

    for (const [id, type, source] of [
      ['/acme/widgets', 'txt', 'cursor'],
      ['/acme/widgets', 'txt', 'cursor'],
      ['/acme/widgets', 'json', undefined],
      ['/acme/gadgets', 'txt', 'claude-code'],
    ] as const) {
      expect((await ask(id, type, source)).statusCode).toBe(200)
    }
    const res = await app.inject({ url: '/api/usage?days=30', cookies: { lectern_session: admin } })
    expect(res.statusCode).toBe(200)
    const report = res.json()
    const today = new Date().toISOString().slice(0, 10)
    expect(report).toMatchObject({ days: 30, to: today, totals: { requests: 4, byTransport: { 'rest-txt': 3, 'rest-json': 1, 'mcp-http': 0, 'mcp-stdio': 0 } } })
    expect(report.byDay).toHaveLength(30)
    expect(report.byDay[0].day).toBe(report.from)
    expect(report.byDay.at(-1)).toMatchObject({ day: today, requests: 4 })
    expect(report.byLibrary).toEqual([
      { libraryId: '/acme/widgets', requests: 3, byTransport: { 'rest-txt': 2, 'rest-json': 1, 'mcp-http': 0, 'mcp-stdio': 0 }, byClient: { cursor: 2, api: 1 } },
      { libraryId: '/acme/gadgets', requests: 1, byTransport: { 'rest-txt': 1, 'rest-json': 0, 'mcp-http': 0, 'mcp-stdio': 0 }, byClient: { 'claude-code': 1 } },
    ])
  })

  it('keeps days outside the window out, and the window ends today (UTC)', async () => {
    const { store, usage } = app.runtime
    const pk = (await store.libraries.byId('/acme/gadgets'))!.pk
    usage.record(pk, 'old-tool', 'mcp-http', new Date('2026-01-01T12:00:00Z'))
    usage.record(pk, 'old-tool', 'mcp-http', new Date('2026-01-07T23:59:00Z'))
    usage.record(pk, 'old-tool', 'mcp-http', new Date('2026-01-08T00:00:00Z'))
    const report = await usageReport(store, usage, 7, new Date('2026-01-08T10:00:00Z'))
    expect(report.from).toBe('2026-01-02')
    expect(report.to).toBe('2026-01-08')
    expect(report.totals.requests).toBe(2)
    expect(report.byDay.map((d) => d.requests)).toEqual([0, 0, 0, 0, 0, 1, 1])
    expect(report.byLibrary).toEqual([
      { libraryId: '/acme/gadgets', requests: 2, byTransport: { 'rest-txt': 0, 'rest-json': 0, 'mcp-http': 2, 'mcp-stdio': 0 }, byClient: { 'old-tool': 2 } },
    ])
  })
})
