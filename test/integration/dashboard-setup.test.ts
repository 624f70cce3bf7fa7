/**
 * The dashboard's ground floor: the first admin created with the one-time setup token, the
 * session the page asks about, cross-site requests refused, and the page itself served with a
 * strict Content-Security-Policy and cacheable assets.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { CONTENT_SECURITY_POLICY, DASHBOARD_DIR } from '../../server/routes/dashboard/page.js'
import { prepareSetup } from '../../src/install/setup.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'

const PASSWORD = 'correct horse battery'
const ORIGIN = 'http://localhost:80'

const setup = (app: FastifyInstance, body: Record<string, string>, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/setup', payload: body, headers: { origin: ORIGIN, ...headers } })

const cookieOf = (res: { cookies: Array<{ name: string; value: string }> }) => {
  const cookie = res.cookies.find((c) => c.name === 'lectern_session')
  return cookie ? `lectern_session=${cookie.value}` : ''
}

describe('first run', () => {
  it('creates the first admin with the setup token, signs them in, and the token then stops working', async () => {
    const app = await buildTestApp()
    const { store } = app.runtime
    expect((await app.inject({ url: '/api/session' })).json()).toMatchObject({ user: null, setupRequired: true, mode: 'onprem' })
    const prepared = (await prepareSetup(store, store.paths))!
    expect(readFileSync(prepared.file, 'utf8').trim()).toBe(prepared.token)
    expect(statSync(prepared.file).mode & 0o777).toBe(0o600)

    const wrong = await setup(app, { token: 'not-the-token', email: 'ops@example.com', password: PASSWORD })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json()).toMatchObject({ error: 'not_authenticated', message: expect.stringContaining('setup-token') })
    const weak = await setup(app, { token: prepared.token, email: 'ops@example.com', password: 'short' })
    expect(weak.statusCode).toBe(400)
    expect(weak.json()).toMatchObject({ error: 'validation_error', message: expect.stringMatching(/at least 12/) })
    const repeated = await setup(app, { token: prepared.token, email: 'ops@example.com', password: 'abababababababab' })
    expect(repeated.statusCode).toBe(400)
    expect(repeated.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('5 different characters') })
    expect(await store.users.list()).toEqual([])

    // A refused password puts the token back: the operator can try again with it.
    const made = await setup(app, { token: prepared.token, email: 'ops@example.com', password: PASSWORD })
    expect(made.statusCode, made.body).toBe(200)
    expect(made.json()).toMatchObject({ email: 'ops@example.com', role: 'admin' })
    const cookie = cookieOf(made)
    expect((await app.inject({ url: '/api/session', headers: { cookie } })).json()).toMatchObject({
      user: { email: 'ops@example.com', role: 'admin' },
      setupRequired: false,
    })
    expect(existsSync(prepared.file)).toBe(false)

    const again = await setup(app, { token: prepared.token, email: 'mallory@example.com', password: PASSWORD })
    expect(again.statusCode).toBe(403)
    expect(again.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('already has an admin') })
    expect((await store.users.list()).map((u) => u.email)).toEqual(['ops@example.com'])
  })

  it('makes no token once an admin exists, and erases one an earlier start left', async () => {
    const app = await buildTestApp()
    const { store } = app.runtime
    const first = (await prepareSetup(store, store.paths))!
    await store.users.create({ email: 'ops@example.com', password: PASSWORD })
    expect(await prepareSetup(store, store.paths)).toBeUndefined()
    expect(existsSync(first.file)).toBe(false)
    expect((await setup(app, { token: first.token, email: 'x@example.com', password: PASSWORD })).statusCode).toBe(403)
  })

  it('refuses a malformed body with validation_error, and counts as a new token each start', async () => {
    const app = await buildTestApp()
    const { store } = app.runtime
    const first = (await prepareSetup(store, store.paths))!
    const second = (await prepareSetup(store, store.paths))!
    expect(second.token).not.toBe(first.token)
    expect((await setup(app, { token: first.token, email: 'ops@example.com', password: PASSWORD })).statusCode).toBe(401)
    const missing = await setup(app, { token: second.token, email: 'ops@example.com' })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().error).toBe('validation_error')
    expect(await store.users.list()).toEqual([])
  })
})

describe('cross-site requests', () => {
  async function signedIn() {
    const app = await buildTestApp()
    await app.runtime.store.users.create({ email: 'ops@example.com', password: PASSWORD })
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'ops@example.com', password: PASSWORD } })
    return { app, cookie: cookieOf(login) }
  }

  it('refuse a POST carrying the session from another origin, or a browser that says cross-site', async () => {
    const { app, cookie } = await signedIn()
    const logout = (headers: Record<string, string>) => app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie, ...headers } })
    const crossSite: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      // The same host and port over https is another origin than this plain-http server.
      { origin: 'https://localhost:80', host: 'localhost:80' },
      { origin: 'http://localhost:8080', host: 'localhost:80' },
    ]
    for (const headers of crossSite) {
      const res = await logout(headers)
      expect(res.statusCode, JSON.stringify(headers)).toBe(403)
      expect(res.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('another site') })
    }
    // Still signed in: nothing the forged requests asked for happened.
    expect((await app.inject({ url: '/api/session', headers: { cookie } })).json().user).toMatchObject({ email: 'ops@example.com' })
    expect((await logout({ origin: ORIGIN, host: 'localhost:80' })).statusCode).toBe(204)
  })

  it('refuse a forged sign-in, and let a request without a browser through', async () => {
    const app = await buildTestApp()
    await app.runtime.store.users.create({ email: 'ops@example.com', password: PASSWORD })
    const forged = await app.inject({ method: 'POST', url: '/api/auth/login', headers: { origin: 'https://evil.example' }, payload: { email: 'ops@example.com', password: PASSWORD } })
    expect(forged.statusCode).toBe(403)
    expect(forged.cookies).toEqual([])
    const scripted = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'ops@example.com', password: PASSWORD } })
    expect(scripted.statusCode).toBe(200)
  })

  it('let an admin session add and refresh libraries as a key would; a member session is refused', async () => {
    const { app, cookie } = await signedIn()
    await seedLibrary(app, '/acme/widgets', { 'README.md': '# Widgets\n\n## Use\n\nCall widgets.\n\n```js\nwidgets()\n```\n' })
    const refresh = await app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { cookie, origin: ORIGIN, host: 'localhost:80' }, payload: { libraryName: '/acme/widgets' } })
    expect(refresh.statusCode).not.toBe(401)
    await app.runtime.store.users.create({ email: 'member@example.com', password: PASSWORD, role: 'member' })
    const member = cookieOf(await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'member@example.com', password: PASSWORD } }))
    const refused = await app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { cookie: member }, payload: { libraryName: '/acme/widgets' } })
    expect(refused.statusCode).toBe(401)
    expect(refused.json().error).toBe('invalid_api_key')
  })
})

describe('the page', () => {
  it('is served at / and at its own paths for a browser, with a strict CSP; unknown API paths stay JSON 404s', async () => {
    const app = await buildTestApp()
    for (const url of ['/', '/libraries', '/libraries/acme/widgets', '/queue']) {
      const res = await app.inject({ url, headers: { accept: 'text/html,application/xhtml+xml' } })
      expect(res.statusCode, url).toBe(200)
      expect(res.headers['content-type']).toMatch(/^text\/html/)
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
      expect(res.headers['cache-control']).toBe('no-cache')
      expect(res.headers['x-frame-options']).toBe('DENY')
      expect(res.body).toContain('<div id="app"></div>')
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe')
    const root = await app.inject({ url: '/' })
    expect(root.statusCode).toBe(200)
    for (const url of ['/api/nope', '/nope']) {
      const res = await app.inject({ url, headers: url === '/nope' ? { accept: 'application/json' } : { accept: 'text/html' } })
      expect(res.statusCode, url).toBe(404)
      expect(res.json()).toMatchObject({ error: 'not_found' })
    }
  })

  it('serves its assets precompressed, cached for a year, and no file outside them', async () => {
    const app = await buildTestApp()
    const script = readdirSync(path.join(DASHBOARD_DIR, 'assets')).find((name) => name.endsWith('.js'))!
    const plain = await app.inject({ url: `/assets/${script}` })
    expect(plain.statusCode).toBe(200)
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    const brotli = await app.inject({ url: `/assets/${script}`, headers: { 'accept-encoding': 'br, gzip' } })
    expect(brotli.headers['content-encoding']).toBe('br')
    expect(brotli.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2)
    const gzip = await app.inject({ url: `/assets/${script}`, headers: { 'accept-encoding': 'gzip' } })
    expect(gzip.headers['content-encoding']).toBe('gzip')
    for (const url of ['/assets/../index.html', '/assets/%2e%2e/%2e%2e/package.json', '/assets/nope.js']) {
      expect((await app.inject({ url })).statusCode, url).toBe(404)
    }
  })
})
