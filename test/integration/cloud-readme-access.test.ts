/**
 * Every endpoint of the README's "Cloud accounts and teamspaces" table exists in the cloud and
 * answers 404 on-premise; those not marked "needs no session" refuse a request without a session
 * with 401 before reading it, and a teamspace route answers a user who is not a member 404
 * team_not_found: the table and the routes cannot drift apart.
 */
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'
import { readmeSection, tableRows } from '../helpers/readme.js'
import { signIn } from '../helpers/session.js'

interface Documented {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  route: string
  open: boolean
  /** The body's fields the row names, e.g. `{email, role: admin|developer}`. */
  fields: string[]
}

/** A value for each body field a row may name: an outsider's request sends the row's own, which its schema accepts, so it reaches the membership check. */
const SAMPLE: Record<string, unknown> = { name: 'x', email: 'a@b.co', role: 'admin', token: 'x', libraryFilters: { mode: null }, kind: 'git', connection: 'x' }

function documented(): Documented[] {
  return tableRows(readmeSection('Cloud accounts and teamspaces'), 'Method and path').map(([endpoint, body, answer]) => {
    const [, method, route] = /^`(GET|POST|PATCH|DELETE) (\/api\/\S+)`$/.exec(endpoint!)!
    const fields = (/\{([^}]*)\}/.exec(body ?? '')?.[1] ?? '').split(',').flatMap((part) => /^\s*(\w+)/.exec(part)?.[1] ?? [])
    return { method: method as Documented['method'], route: route!, open: answer!.includes('needs no session'), fields }
  })
}

describe('the cloud account endpoints the README documents', () => {
  const endpoints = documented()

  it('are found in the README (the table parses)', () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(19)
    expect(endpoints.filter((e) => e.open).map((e) => e.route)).toEqual(['/api/auth/signup', '/api/auth/verify', '/api/auth/reset-request', '/api/auth/reset', '/api/invitations/peek'])
  })

  it('need a session (401), hide other teams (404 team_not_found) in the cloud, and do not exist on-premise', async () => {
    const cloud = await buildTestApp({ mode: 'cloud' })
    const onprem = await buildTestApp({ mode: 'onprem' })
    const { users, teams } = cloud.runtime.store
    await users.create({ email: 'owner@example.com', password: 'correct horse battery staple', role: 'member' })
    const team = await teams.create({ name: 'Theirs', ownerUserId: (await users.byEmail('owner@example.com'))!.id, plan: 'pro' })
    const stranger = await signIn(cloud, 'member', 'stranger@example.com')
    for (const { method, route, open, fields } of endpoints) {
      const url = route.replace(':team', String(team.id)).replace(/:userId|:id/, '1')
      const name = `${method} ${url}`
      const payload = method === 'GET' || method === 'DELETE' ? undefined : {}
      const anonymous = await cloud.inject({ method, url, payload })
      if (open) expect(anonymous.statusCode, `${name}: ${anonymous.body}`).toBe(400)
      else expect([anonymous.statusCode, anonymous.json().error], name).toEqual([401, 'not_authenticated'])
      if (route.includes(':team')) {
        const body = Object.fromEntries(fields.filter((f) => f in SAMPLE).map((f) => [f, SAMPLE[f]]))
        const outsider = await cloud.inject({ method, url, payload: method === 'GET' || method === 'DELETE' ? undefined : body, cookies: stranger })
        expect([outsider.statusCode, outsider.json().error], name).toEqual([404, 'team_not_found'])
      }
      expect((await onprem.inject({ method, url, payload })).statusCode, `${name} on-premise`).toBe(404)
    }
  })
})
