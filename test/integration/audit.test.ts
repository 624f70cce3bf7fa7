/**
 * The audit log through HTTP: what the dashboard's and the API's actions record (sign-ins, keys,
 * access rules, settings, blocked access attempts over REST and MCP), with time, actor, address
 * and target; GET /api/audit's filters and paging; the JSON-lines export; retention; and that no
 * key, password or question ever reaches it.
 */
import type { FastifyInstance } from 'fastify'
import { describe, expect, it, vi } from 'vitest'
import { pruneAudit } from '../../src/audit/log.js'
import { membersAllowed } from '../../src/tenancy/plans.js'
import type { AuditEvent } from '../../src/store/audit.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { signIn, TEST_PASSWORD } from '../helpers/session.js'

type Headers = Record<string, string>
const cookie = (session: { lectern_session: string }): Headers => ({ cookie: `lectern_session=${session.lectern_session}` })
const bearer = (key: string): Headers => ({ authorization: `Bearer ${key}` })
const DOCS = { 'docs/deploy.md': '# Billing\n\n## Deploy\n\nDeploy the billing service with the deploy script.\n\n```bash\n./deploy.sh v1\n```\n' }
const QUESTION = 'how do I rotate the quokka ledger'

async function events(app: FastifyInstance, admin: Headers, query = ''): Promise<AuditEvent[]> {
  const answer = await app.inject({ url: `/api/audit?limit=500${query}`, headers: admin })
  expect(answer.statusCode, answer.body).toBe(200)
  return answer.json().events as AuditEvent[]
}

const mcpCall = (app: FastifyInstance, headers: Headers, libraryId: string) =>
  app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'query-docs', arguments: { libraryId, query: QUESTION } } },
  })

describe('the audit log over HTTP', () => {
  it('records sign-ins, keys, access rules, settings and blocked attempts, with actor, address and target, and nothing secret', async () => {
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/acme/billing', DOCS)
    const admin = cookie(await signIn(app, 'admin'))
    const bob = cookie(await signIn(app, 'member', 'bob@example.com'))

    const wrong = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'admin@example.com', password: 'not-the-password-1' }, remoteAddress: '198.51.100.7' })
    expect(wrong.statusCode).toBe(401)
    const created = await app.inject({ method: 'POST', url: '/api/keys', headers: admin, payload: { name: 'ci' } })
    const key = created.json() as { id: number; key: string }
    const bobUser = (await app.runtime.store.users.byEmail('bob@example.com'))!
    const bobsKey = (await app.runtime.store.keys.create('bob', { userId: bobUser.id, teamId: null })).key
    expect((await app.inject({ method: 'DELETE', url: `/api/keys/${key.id}`, headers: admin })).statusCode).toBe(200)
    expect((await app.inject({ method: 'PUT', url: '/api/libraries/acme/billing/access', headers: admin, payload: { access: 'restricted', users: [] } })).statusCode).toBe(200)
    expect((await app.inject({ method: 'PUT', url: '/api/library-access/default', headers: admin, payload: { restrictNewLibraries: true } })).statusCode).toBe(200)
    expect((await app.inject({ method: 'PUT', url: '/api/settings/mcp', headers: admin, payload: { requireKey: false } })).statusCode).toBe(200)

    // Blocked: bob's key over REST and MCP, bob's session; an unknown library is no attempt on anything.
    const blocked = await app.inject({ url: `/api/v2/context?libraryId=/acme/billing&query=${encodeURIComponent(QUESTION)}`, headers: bearer(bobsKey), remoteAddress: '203.0.113.9' })
    const unknown = await app.inject({ url: `/api/v2/context?libraryId=/acme/nothing&query=${encodeURIComponent(QUESTION)}`, headers: bearer(bobsKey), remoteAddress: '203.0.113.9' })
    expect(blocked.statusCode).toBe(404)
    expect(blocked.body.replace('billing', 'nothing')).toBe(unknown.body)
    expect(JSON.stringify((await mcpCall(app, bearer(bobsKey), '/acme/billing')).json())).toContain('not found')
    expect((await app.inject({ url: '/api/v2/context?libraryId=/acme/billing&query=deploy', headers: bob })).statusCode).toBe(404)
    expect((await app.inject({ method: 'POST', url: '/api/auth/logout', headers: bob })).statusCode).toBe(204)
    expect((await app.inject({ method: 'POST', url: '/api/backup', headers: admin })).statusCode).toBe(202)
    await vi.waitFor(async () => expect((await app.inject({ url: '/api/backup/status', headers: admin })).json().last?.ok).toBe(true), { timeout: 30_000 })

    // Blocked attempts are written after the answer, so that they cost it no time.
    await vi.waitFor(async () => expect((await events(app, admin, '&action=access.blocked')).length).toBe(3))
    const log = await events(app, admin)
    const find = (action: string) => log.filter((e) => e.action === action)
    expect(find('signin.failed')).toEqual([
      expect.objectContaining({ outcome: 'failure', actor: { kind: 'anonymous', name: null }, address: '198.51.100.7', target: 'admin@example.com' }),
    ])
    expect(find('signin.succeeded').map((e) => [e.actor, e.target])).toEqual([
      [{ kind: 'user', name: 'bob@example.com' }, 'bob@example.com'],
      [{ kind: 'user', name: 'admin@example.com' }, 'admin@example.com'],
    ])
    expect(find('signout')).toEqual([expect.objectContaining({ actor: { kind: 'user', name: 'bob@example.com' }, target: 'bob@example.com' })])
    expect(find('key.created')).toEqual([expect.objectContaining({ actor: { kind: 'user', name: 'admin@example.com' }, target: `key ${key.id} "ci"`, details: { owner: 'admin@example.com' } })])
    expect(find('key.revoked')).toEqual([expect.objectContaining({ target: `key ${key.id} "ci"`, outcome: 'success' })])
    expect(find('access.rule.changed')).toEqual([expect.objectContaining({ target: '/acme/billing', details: { access: 'restricted', users: [], groups: [] } })])
    expect(find('access.default.changed')).toEqual([expect.objectContaining({ details: { restrictNewLibraries: true } })])
    expect(find('settings.changed')).toEqual([expect.objectContaining({ target: 'mcp.requireKey', details: { value: false } })])
    expect(find('backup.created')).toEqual([
      expect.objectContaining({ actor: { kind: 'user', name: 'admin@example.com' }, target: expect.stringMatching(/^lectern-backup-.*\.tar\.gz$/), details: expect.objectContaining({ trigger: 'manual' }) }),
    ])
    const attempts = find('access.blocked')
    // Written after each answer, so their order among themselves is not the requests' order.
    const byKey = expect.stringMatching(/^bob@example\.com \(key \d+\)$/)
    expect(attempts).toHaveLength(3)
    expect(attempts.map((e) => [e.outcome, e.target, e.actor.name, e.details.route, e.address])).toEqual(
      expect.arrayContaining([
        ['blocked', '/acme/billing', 'bob@example.com', 'GET /api/v2/context', expect.any(String)],
        ['blocked', '/acme/billing', byKey, 'POST /mcp', expect.any(String)],
        ['blocked', '/acme/billing', byKey, 'GET /api/v2/context', '203.0.113.9'],
      ]),
    )
    for (const event of log) {
      expect(Date.parse(event.at)).toBeGreaterThan(Date.now() - 60_000)
      if (event.actor.kind !== 'anonymous') expect(event.address).toEqual(expect.any(String))
    }

    const exported = await app.inject({ url: '/api/audit/export', headers: admin })
    expect(exported.headers['content-type']).toBe('application/x-ndjson; charset=utf-8')
    for (const secret of [key.key, bobsKey, TEST_PASSWORD, 'not-the-password-1', 'quokka', admin.cookie.split('=')[1], bob.cookie.split('=')[1]]) {
      expect(exported.body).not.toContain(secret)
    }
    const lines = exported.body.trimEnd().split('\n').map((line) => JSON.parse(line) as AuditEvent)
    expect(lines.map((e) => e.id)).toEqual(log.map((e) => e.id).reverse())
    await app.close()
  })

  it('filters by time, action group, actor, target and outcome, and pages without gaps or repeats', async () => {
    const app = await buildTestApp({ startWorker: false })
    const admin = cookie(await signIn(app, 'admin'))
    for (let i = 0; i < 7; i++) await app.inject({ method: 'POST', url: '/api/keys', headers: admin, payload: { name: `k${i}` } })
    const old = await app.runtime.store.audit.record(
      { action: 'key.created', outcome: 'success', actor: { kind: 'cli', name: 'ops' }, address: null, target: 'key 99 "old"', details: {} },
      new Date(Date.now() - 3 * 86_400_000),
    )

    const keysOnly = await events(app, admin, '&action=key')
    expect(keysOnly).toHaveLength(8)
    expect(await events(app, admin, '&action=key&since=1d')).toHaveLength(7)
    expect((await events(app, admin, '&until=2d')).map((e) => e.id)).toEqual([old.id])
    expect((await events(app, admin, '&actor=OPS')).map((e) => e.id)).toEqual([old.id])
    expect(await events(app, admin, '&target=%22k3%22')).toHaveLength(1)
    expect(await events(app, admin, '&outcome=failure')).toEqual([])

    const seen: number[] = []
    let cursor: number | null | undefined
    do {
      const page = await app.inject({ url: `/api/audit?action=key&limit=3${cursor ? `&cursor=${cursor}` : ''}`, headers: admin })
      const body = page.json() as { events: AuditEvent[]; nextCursor: number | null }
      expect(body.events.length).toBeLessThanOrEqual(3)
      seen.push(...body.events.map((e) => e.id))
      cursor = body.nextCursor
    } while (cursor)
    expect(seen).toEqual(keysOnly.map((e) => e.id))

    const refusals = {
      action: await app.inject({ url: '/api/audit?action=keys', headers: admin }),
      since: await app.inject({ url: '/api/audit?since=yesterday', headers: admin }),
      limit: await app.inject({ url: '/api/audit?limit=501', headers: admin }),
      field: await app.inject({ url: '/api/audit?password=x', headers: admin }),
    }
    for (const refused of Object.values(refusals)) expect([refused.statusCode, refused.json().error]).toEqual([400, 'validation_error'])
    expect(refusals.action.json().message).toContain('key.created')
    expect(refusals.since.json().message).toContain('7d')

    const member = cookie(await signIn(app, 'member', 'dana@example.com'))
    expect((await app.inject({ url: '/api/audit', headers: member })).statusCode).toBe(403)
    expect((await app.inject({ url: '/api/audit/export' })).statusCode).toBe(401)
    await app.close()
  })

  it('records, in the cloud, a teamspace key and a change of a member role, for the operator to read', async () => {
    const app = await buildTestApp({ mode: 'cloud', startWorker: false })
    const { users, teams } = app.runtime.store
    const operator = cookie(await signIn(app, 'admin', 'ops@example.com'))
    const owner = cookie(await signIn(app, 'member', 'owner@example.com'))
    await signIn(app, 'member', 'dev@example.com')
    const ownerId = (await users.byEmail('owner@example.com'))!.id
    await teams.setPlan((await teams.personalTeam(ownerId)).id, 'pro')
    const team = (await app.inject({ method: 'POST', url: '/api/teams', headers: owner, payload: { name: 'Acme Docs' } })).json() as { id: number }
    const devId = (await users.byEmail('dev@example.com'))!.id
    await teams.addMember(team.id, devId, 'developer', membersAllowed)
    expect((await app.inject({ method: 'PATCH', url: `/api/teams/${team.id}/members/${devId}`, headers: owner, payload: { role: 'admin' } })).statusCode).toBe(200)
    const key = await app.inject({ method: 'POST', url: `/api/teams/${team.id}/keys`, headers: owner, payload: { name: 'ci' } })
    expect(key.statusCode, key.body).toBe(201)

    const log = await events(app, operator)
    expect(log.find((e) => e.action === 'user.role.changed')).toMatchObject({ actor: { kind: 'user', name: 'owner@example.com' }, target: 'dev@example.com', details: { team: 'Acme Docs', role: 'admin' } })
    expect(log.find((e) => e.action === 'key.created')).toMatchObject({ target: `key ${key.json().id} "ci"`, details: { owner: 'owner@example.com', teamId: team.id } })
    expect((await app.inject({ url: '/api/audit', headers: owner })).statusCode).toBe(403)
    await app.close()
  })

  it('keeps events audit.retentionDays days (0 keeps them all)', async () => {
    const app = await buildTestApp({ startWorker: false })
    const { store } = app.runtime
    const event = { action: 'settings.changed', outcome: 'success' as const, actor: { kind: 'cli' as const, name: 'ops' }, address: null, target: 'jobs.retentionDays', details: {} }
    const day = 86_400_000
    await store.audit.record(event, new Date(Date.now() - 400 * day))
    const recent = await store.audit.record(event, new Date(Date.now() - 300 * day))
    expect(await pruneAudit(store)).toBe(1)
    expect((await store.audit.list({}, { limit: 10 })).map((e) => e.id)).toEqual([recent.id])
    await store.settings.set('audit.retentionDays', 0)
    expect(await pruneAudit(store)).toBe(0)
    await store.settings.set('audit.retentionDays', 30)
    expect(await pruneAudit(store)).toBe(1)
    await app.close()
  })
})
