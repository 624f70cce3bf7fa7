/**
 * `lectern serve --trust-proxy 127.0.0.1` behind a real nginx that terminates TLS and sets
 * X-Forwarded-For and X-Forwarded-Proto, with clients on different loopback source addresses
 * (127.0.0.2, 127.0.0.3, ...): each client address has its own anonymous rate-limit bucket, a
 * forged X-Forwarded-For changes nothing, the session cookie is Secure over https, and an admin
 * is served while anonymous traffic from the admin's own address is refused. Clients that reach
 * the server directly are not the trusted proxy: their X-Forwarded-* headers are ignored.
 */
import path from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../src/store/index.js'
import { request, startTlsProxy, type ClientOptions, type TlsProxy } from '../helpers/nginx.js'
import { startServer } from '../helpers/server.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 })

const PASSWORD = 'correct horse battery staple'
const ANONYMOUS_LIMIT = 3
const KEYED_LIMIT = 50
const defer = suiteTeardown()
let direct: string
let proxy: TlsProxy

beforeAll(async () => {
  const dataDir = path.join(await tmpDir('lectern-proxied-', defer), 'data')
  const store = await openStore(dataDir)
  await store.users.create({ email: 'ops@example.com', password: PASSWORD })
  await store.close()
  const server = await startServer(
    dataDir,
    { LECTERN_RATE_LIMIT_ANONYMOUS: String(ANONYMOUS_LIMIT), LECTERN_RATE_LIMIT_KEYED: String(KEYED_LIMIT), LECTERN_RATE_LIMIT_WINDOW: '86400' },
    defer,
    { args: ['--trust-proxy', '127.0.0.1'] },
  )
  direct = server.url
  proxy = await startTlsProxy(server.url, defer)
})

/** Through nginx over https, from `client`. */
const viaProxy = (client: string, route: string, options: ClientOptions = {}) => request(`${proxy.url}${route}`, { ...options, ca: proxy.ca, localAddress: client })
/** Straight to the server over http, from `client`. */
const straight = (client: string, route: string, options: ClientOptions = {}) => request(`${direct}${route}`, { ...options, localAddress: client })
const SEARCH = '/api/v2/libs/search?libraryName=anything'
const login = { method: 'POST', body: { email: 'ops@example.com', password: PASSWORD } }

describe('behind nginx (TLS) with lectern serve --trust-proxy 127.0.0.1', () => {
  it('gives each client address its own bucket, whatever X-Forwarded-For the client forges', async () => {
    for (let i = 0; i < ANONYMOUS_LIMIT; i++) {
      const res = await viaProxy('127.0.0.2', SEARCH, { headers: { 'x-forwarded-for': `203.0.113.${i}` } })
      expect([res.status, res.headers['ratelimit-remaining']]).toEqual([404, String(ANONYMOUS_LIMIT - 1 - i)])
    }
    const refused = await viaProxy('127.0.0.2', SEARCH, { headers: { 'x-forwarded-for': '203.0.113.99' } })
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'rate_limit_exceeded' })
    expect((await viaProxy('127.0.0.3', SEARCH)).status).toBe(404)
  })

  it('sets the session cookie Secure over https, and serves the admin while its address is refused', async () => {
    const signedIn = await viaProxy('127.0.0.4', '/api/auth/login', login)
    expect(signedIn.status).toBe(200)
    const setCookie = String(signedIn.headers['set-cookie'])
    expect(setCookie).toMatch(/; Secure(;|$)/)
    expect(setCookie).toMatch(/HttpOnly/)
    const cookie = setCookie.split(';')[0]!
    // The sign-in has a limit of its own (per account and client address): the address's requests are all left, then refusals.
    for (let i = 0; i < ANONYMOUS_LIMIT; i++) expect((await viaProxy('127.0.0.4', SEARCH)).status).toBe(404)
    expect((await viaProxy('127.0.0.4', SEARCH)).status).toBe(429)
    const status = await viaProxy('127.0.0.4', '/api/backup/status', { headers: { cookie } })
    expect(status.status).toBe(200)
    expect(status.headers['ratelimit-limit']).toBe(String(KEYED_LIMIT))
    expect((await viaProxy('127.0.0.4', SEARCH, { headers: { cookie } })).status).toBe(404)
  })
})

describe('reaching the same server directly, not through the trusted proxy', () => {
  it('ignores X-Forwarded-For and X-Forwarded-Proto, and counts each source address in its own bucket', async () => {
    const forged = { 'x-forwarded-for': '127.0.0.9', 'x-forwarded-proto': 'https' }
    const signedIn = await straight('127.0.0.5', '/api/auth/login', { ...login, headers: forged })
    expect(signedIn.status).toBe(200)
    expect(String(signedIn.headers['set-cookie'])).not.toContain('Secure')
    for (let i = 0; i < ANONYMOUS_LIMIT; i++) expect((await straight('127.0.0.5', SEARCH, { headers: { 'x-forwarded-for': `127.0.0.${10 + i}` } })).status).toBe(404)
    expect((await straight('127.0.0.5', SEARCH, { headers: { 'x-forwarded-for': '127.0.0.20' } })).status).toBe(429)
    expect((await straight('127.0.0.6', SEARCH)).status).toBe(404)
    // The forged address was never counted as a client of its own.
    expect((await straight('127.0.0.9', SEARCH)).headers['ratelimit-remaining']).toBe(String(ANONYMOUS_LIMIT - 1))
  })
})
