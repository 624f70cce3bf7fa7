/** The Settings page's endpoints: MCP's key requirement, the rate limits in force, and the offline license. */
import { describe, expect, it } from 'vitest'
import { buildTestApp, createKey } from '../helpers/app.js'
import { signIn } from '../helpers/session.js'

const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

describe('GET /api/settings and PUT /api/settings/mcp', () => {
  it('show the rate limits and MCP setting, and switching MCP to need a key takes effect at once', async () => {
    const app = await buildTestApp({ rateLimit: { anonymous: 30, keyed: 300, windowSeconds: 60 } })
    const cookies = await signIn(app)
    const view = await app.inject({ url: '/api/settings', cookies })
    expect(view.json()).toMatchObject({ mode: 'onprem', mcp: { requireKey: false }, rateLimit: { anonymous: 30, keyed: 300, windowSeconds: 60 }, license: { state: 'none' } })
    expect((await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: TOOLS_LIST })).statusCode).toBe(200)

    const on = await app.inject({ method: 'PUT', url: '/api/settings/mcp', cookies, payload: { requireKey: true } })
    expect(on.json()).toEqual({ requireKey: true })
    expect((await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: TOOLS_LIST })).statusCode).toBe(401)
    const keyed = await app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${await createKey(app)}` }, payload: TOOLS_LIST })
    expect(keyed.statusCode).toBe(200)
    expect((await app.inject({ url: '/api/auth/mcp' })).json()).toEqual({ enabled: true })
  })

  it('refuse no session 401, a member 403, a bad body 400, and a license that does not verify 400, changing nothing', async () => {
    const app = await buildTestApp()
    const admin = await signIn(app)
    const member = await signIn(app, 'member')
    for (const [method, url, payload] of [
      ['GET', '/api/settings', undefined],
      ['PUT', '/api/settings/mcp', { requireKey: true }],
      ['PUT', '/api/license', { license: '{}' }],
    ] as const) {
      expect((await app.inject({ method, url, payload })).statusCode, url).toBe(401)
      expect((await app.inject({ method, url, payload, cookies: member })).statusCode, url).toBe(403)
    }
    for (const payload of [{}, { requireKey: 'yes' }, { requireKey: {} }]) {
      const res = await app.inject({ method: 'PUT', url: '/api/settings/mcp', cookies: admin, payload })
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().error).toBe('validation_error')
    }
    const license = await app.inject({ method: 'PUT', url: '/api/license', cookies: admin, payload: { license: '{"not":"a license"}' } })
    expect(license.statusCode).toBe(400)
    expect(license.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('public key') })
    expect((await app.inject({ url: '/api/settings', cookies: admin })).json()).toMatchObject({ mcp: { requireKey: false }, license: { state: 'none' } })
  })

  it('has no license route in cloud mode', async () => {
    const app = await buildTestApp({ mode: 'cloud' })
    const cookies = await signIn(app)
    expect((await app.inject({ method: 'PUT', url: '/api/license', cookies, payload: { license: 'x' } })).statusCode).toBe(404)
    expect((await app.inject({ url: '/api/settings', cookies })).json()).not.toHaveProperty('license')
  })
})
