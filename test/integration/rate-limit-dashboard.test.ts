/**
 * Loading the dashboard costs the address nothing: its page, its assets and `GET /api/session`
 * are not counted against the anonymous rate limit, so an office behind one NAT address that
 * opens the sign-in page does not lock its MCP clients and scripts out. Everything else is
 * counted as before, and a request with a wrong API key is counted on every path, the dashboard's
 * included, before its 401.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { DASHBOARD_DIR } from '../../server/routes/dashboard/page.js'
import { buildTestApp } from '../helpers/app.js'

// A day-long window: a fixed window rolling over mid-test would reset the counts.
const limits = { anonymous: 2, keyed: 4, windowSeconds: 86_400 }

describe('the anonymous rate limit and the dashboard', () => {
  it('counts neither the page, nor its assets, nor /api/session; the API still is', async () => {
    const app = await buildTestApp({ startWorker: false, rateLimit: limits })
    const asset = `/assets/${fs.readdirSync(path.join(DASHBOARD_DIR, 'assets')).find((name) => name.endsWith('.js'))}`
    for (let load = 0; load < 5; load++) {
      for (const url of ['/', '/libraries', asset, '/api/session']) {
        const response = await app.inject({ url, headers: { accept: url === asset ? '*/*' : url.startsWith('/api') ? 'application/json' : 'text/html' } })
        expect(response.statusCode, url).toBe(200)
        expect(response.headers['ratelimit-limit'], url).toBeUndefined()
      }
    }
    const api = () => app.inject({ url: '/api/v2/libs/search', query: { libraryName: 'anything' } })
    expect((await api()).headers['ratelimit-remaining']).toBe('1')
    expect((await api()).headers['ratelimit-remaining']).toBe('0')
    const refused = await api()
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toMatchObject({ error: 'rate_limit_exceeded' })
    // Past the limit, the dashboard still loads for that address.
    expect((await app.inject({ url: '/', headers: { accept: 'text/html' } })).statusCode).toBe(200)
    expect((await app.inject({ url: '/api/session' })).statusCode).toBe(200)
  })

  it('counts a wrong API key on the dashboard paths too, then refuses it', async () => {
    const app = await buildTestApp({ startWorker: false, rateLimit: limits })
    const wrong = { authorization: 'Bearer lct_00000000000000000000000000000000', accept: 'text/html' }
    const first = await app.inject({ url: '/', headers: wrong })
    expect(first.statusCode).toBe(401)
    expect(first.headers['ratelimit-remaining']).toBe('1')
    expect((await app.inject({ url: '/api/session', headers: wrong })).headers['ratelimit-remaining']).toBe('0')
    expect((await app.inject({ url: '/', headers: wrong })).statusCode).toBe(429)
  })
})

describe('signing in', () => {
  const PASSWORD = 'correct horse battery staple'
  const signInLimits = { ...limits, signIn: 3 }

  it('has a limit of its own, per account and address: anonymous load and guesses at other accounts never refuse the admin', async () => {
    const app = await buildTestApp({ startWorker: false, rateLimit: signInLimits })
    await app.runtime.store.users.create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' })
    await app.runtime.store.users.create({ email: 'dev@example.com', password: PASSWORD, role: 'member' })
    const signIn = (email: string, password: string, remoteAddress = '127.0.0.1') =>
      app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { email, password } })

    // The office NAT's anonymous requests use up its address's limit.
    for (let i = 0; i < 3; i++) await app.inject({ url: '/api/v2/libs/search', query: { libraryName: 'anything' } })
    expect((await app.inject({ url: '/api/v2/libs/search', query: { libraryName: 'anything' } })).statusCode).toBe(429)
    expect((await signIn('ops@example.com', PASSWORD)).statusCode).toBe(200)

    // Guesses at the admin's password from elsewhere are refused past the limit, whatever they send...
    for (let i = 0; i < 3; i++) expect((await signIn('ops@example.com', 'guess', '203.0.113.9')).statusCode).toBe(401)
    const refused = await signIn('OPS@example.com', PASSWORD, '203.0.113.9')
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toEqual({ error: 'rate_limit_exceeded', message: expect.stringMatching(/^Too many sign-in attempts for this account from this address; retry in \d+ s\.$/) })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    // ...while the admin, at their own address, still signs in; so does another account from that address.
    expect((await signIn('ops@example.com', PASSWORD)).statusCode).toBe(200)
    expect((await signIn('dev@example.com', PASSWORD, '203.0.113.9')).statusCode).toBe(200)

    // Guesses at another account from the admin's address leave the admin's sign-in alone.
    for (let i = 0; i < 4; i++) await signIn('dev@example.com', 'guess')
    expect((await signIn('dev@example.com', PASSWORD)).statusCode).toBe(429)
    expect((await signIn('ops@example.com', PASSWORD)).statusCode).toBe(200)
  })

  it('limits the sign-ins of one address over all accounts together to five times the limit: no password spraying', async () => {
    const app = await buildTestApp({ startWorker: false, rateLimit: signInLimits })
    await app.runtime.store.users.create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' })
    const signIn = (email: string, remoteAddress: string) => app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { email, password: 'Summer2026!' } })
    for (let i = 0; i < 15; i++) expect((await signIn(`user${i}@example.com`, '198.51.100.7')).statusCode).toBe(401)
    const sprayed = await signIn('user15@example.com', '198.51.100.7')
    expect(sprayed.statusCode).toBe(429)
    expect(sprayed.json().message).toMatch(/^Too many sign-in attempts from this address; retry in \d+ s\.$/)
    expect((await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'ops@example.com', password: PASSWORD } })).statusCode).toBe(200)
  })
})
