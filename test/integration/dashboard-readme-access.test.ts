/**
 * Every endpoint the README documents for the dashboard (its "Dashboard API" and "Jobs API"
 * tables) refuses a request without a session with 401 and a member's with 403 (but for the few
 * any signed-in user may call), before anything else: the documentation and the access rules cannot drift apart, and a new endpoint is covered
 * as soon as it is documented.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { signIn } from '../helpers/session.js'

/** Endpoints of those tables that a browser asks before anyone has signed in. */
const OPEN = new Set(['GET /api/session', 'POST /api/setup'])
/** Endpoints of those tables for any signed-in user: a member's empty body reaches the schema. */
const ANY_SESSION = new Set(['POST /api/auth/password'])

interface Documented {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  cloudOnly: boolean
}

function documentedEndpoints(): Documented[] {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Dashboard API'), readme.indexOf('## MCP: connecting AI tools'))
  const found: Documented[] = []
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const cloudOnly = /Cloud only/.test(row)
    const first = row.split(' | ')[0]!
    for (const [, method, route] of first.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`?\s]+)[^`]*`/g)) {
      const concrete = route!
        .replace(':owner/:name', 'acme/widgets')
        .replace(/:tag\b/, 'v1')
        .replace(/\{id\}|:id\b/, '1')
      found.push({ method: method as Documented['method'], path: concrete, cloudOnly })
    }
  }
  return found
}

describe('the dashboard endpoints the README documents', () => {
  const endpoints = documentedEndpoints()

  it('are found in the README (the tables parse)', () => {
    expect(endpoints.length).toBeGreaterThan(25)
    expect(endpoints.map((e) => `${e.method} ${e.path}`)).toContain('POST /api/jobs/1/cancel')
  })

  for (const mode of ['onprem', 'cloud'] as const) {
    it(`refuse no session 401 and a member 403 (${mode})`, async () => {
      const app = await buildTestApp({ mode })
      const member = await signIn(app, 'member')
      const checked: string[] = []
      for (const { method, path: url, cloudOnly } of endpoints) {
        const name = `${method} ${url}`
        if (OPEN.has(name) || (cloudOnly && mode !== 'cloud')) continue
        const payload = method === 'GET' || method === 'DELETE' ? undefined : {}
        const anonymous = await app.inject({ method, url, payload })
        // A route that exists only in the other mode answers 404 to everyone.
        if (anonymous.statusCode === 404 && anonymous.json().error === 'not_found') continue
        expect(anonymous.statusCode, `${name} without a session: ${anonymous.body}`).toBe(401)
        expect(anonymous.json().error, name).toBe('not_authenticated')
        const refused = await app.inject({ method, url, payload, cookies: member })
        expect(refused.statusCode, `${name} as a member: ${refused.body}`).toBe(ANY_SESSION.has(name) ? 400 : 403)
        checked.push(name)
      }
      expect(checked.length).toBeGreaterThanOrEqual(20)
    })
  }
})
