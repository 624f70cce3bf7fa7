/**
 * --trust-proxy (server.trustProxy): with it, the client address and protocol come from
 * X-Forwarded-For and X-Forwarded-Proto as far as the trusted hops reach; without it, or from a
 * peer that is not a trusted proxy, those headers are ignored. The address decides the anonymous
 * rate-limit bucket, the protocol whether the session cookie is Secure. A signed-in session is
 * counted in a bucket of its own, so anonymous traffic from its address never locks out an admin.
 * (The server builds no absolute URLs, so X-Forwarded-Host changes no answer.)
 */
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import type { TrustProxy } from '../../src/config.js'
import { buildTestApp, createKey } from '../helpers/app.js'

const PASSWORD = 'correct horse battery staple'
// A day-long window: a fixed window rolling over mid-test would reset the counts.
const limits = { anonymous: 2, keyed: 4, windowSeconds: 86_400 }

async function limitedApp(trustProxy: TrustProxy): Promise<FastifyInstance> {
  return buildTestApp({ startWorker: false, rateLimit: limits, server: { trustProxy } })
}

/** An anonymous request from the socket address `peer`, with the X-Forwarded-For it sends. */
function search(app: FastifyInstance, peer: string, forwardedFor?: string) {
  return app.inject({
    url: '/api/v2/libs/search',
    query: { libraryName: 'anything' },
    remoteAddress: peer,
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  })
}

/** Sends `limits.anonymous` requests that are served, and one more that is refused with 429. */
async function exhaust(app: FastifyInstance, peer: string, forwardedFor?: string): Promise<void> {
  for (let i = 0; i < limits.anonymous; i++) expect((await search(app, peer, forwardedFor)).statusCode).toBe(404)
  expect((await search(app, peer, forwardedFor)).statusCode).toBe(429)
}

async function login(app: FastifyInstance, peer: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: peer, headers, payload: { email: 'ops@example.com', password: PASSWORD } })
  expect(res.statusCode).toBe(200)
  return res.headers['set-cookie'] as string
}

describe('rate-limit buckets and --trust-proxy', () => {
  it('without --trust-proxy, X-Forwarded-For is ignored: forged addresses share the socket address\'s bucket', async () => {
    const app = await limitedApp(false)
    await exhaust(app, '127.0.0.1', '203.0.113.1')
    expect((await search(app, '127.0.0.1', '203.0.113.2')).statusCode).toBe(429)
    expect((await search(app, '127.0.0.1')).statusCode).toBe(429)
    // Another socket address has its own bucket.
    expect((await search(app, '127.0.0.2')).statusCode).toBe(404)
  })

  it('--trust-proxy true: every X-Forwarded-For address has its own bucket', async () => {
    const app = await limitedApp(true)
    await exhaust(app, '127.0.0.1', '203.0.113.1')
    expect((await search(app, '127.0.0.1', '203.0.113.2')).statusCode).toBe(404)
    // The proxy's own address is not the client's: its bucket is untouched.
    expect((await search(app, '127.0.0.1')).statusCode).toBe(404)
  })

  it('--trust-proxy 1: only the address the one trusted hop added counts, not what the client forged before it', async () => {
    const app = await limitedApp(1)
    await exhaust(app, '127.0.0.1', '198.51.100.7, 203.0.113.1')
    expect((await search(app, '127.0.0.1', '198.51.100.8, 203.0.113.1')).statusCode).toBe(429)
    expect((await search(app, '127.0.0.1', '198.51.100.7, 203.0.113.2')).statusCode).toBe(404)
  })

  it('--trust-proxy with addresses: X-Forwarded-For counts from those proxies only', async () => {
    const app = await limitedApp(['10.0.0.1', '10.1.0.0/16'])
    await exhaust(app, '10.0.0.1', '203.0.113.1')
    expect((await search(app, '10.1.2.3', '203.0.113.2')).statusCode).toBe(404)
    // From a peer that is not a trusted proxy the header is a forgery: the peer's own bucket counts.
    await exhaust(app, '192.0.2.9', '203.0.113.3')
    expect((await search(app, '192.0.2.9', '203.0.113.4')).statusCode).toBe(429)
    expect((await search(app, '10.0.0.1', '203.0.113.3')).statusCode).toBe(404)
  })

  it('an admin session has a bucket of its own: anonymous traffic from its address never refuses it', async () => {
    const app = await limitedApp(false)
    await app.runtime.store.users.create({ email: 'ops@example.com', password: PASSWORD })
    // The sign-in has a limit of its own: it takes none of the address's requests.
    const cookie = (await login(app, '127.0.0.1')).split(';')[0]!
    for (let i = 0; i < limits.anonymous; i++) expect((await search(app, '127.0.0.1')).statusCode).toBe(404)
    expect((await search(app, '127.0.0.1')).statusCode).toBe(429)
    const status = () => app.inject({ url: '/api/backup/status', remoteAddress: '127.0.0.1', headers: { cookie } })
    for (let remaining = limits.keyed - 1; remaining >= 0; remaining--) {
      const res = await status()
      expect(res.statusCode).toBe(200)
      expect([res.headers['ratelimit-limit'], res.headers['ratelimit-remaining']]).toEqual([String(limits.keyed), String(remaining)])
    }
    // Limited all the same, at the keyed limit, and without advice to send a key.
    const refused = await status()
    expect(refused.statusCode).toBe(429)
    expect(refused.json().message).not.toContain('API key')
    // An unknown session cookie is anonymous: it gets no bucket of its own.
    const forged = await app.inject({ url: '/api/v2/libs/search', query: { libraryName: 'x' }, remoteAddress: '127.0.0.1', headers: { cookie: 'lectern_session=forged' } })
    expect(forged.statusCode).toBe(429)
    // An API key is counted per key, whoever else shares the address.
    const keyed = await app.inject({ url: '/api/v2/libs/search', query: { libraryName: 'x' }, remoteAddress: '127.0.0.1', headers: { authorization: `Bearer ${await createKey(app)}` } })
    expect(keyed.statusCode).toBe(404)
  })
})

describe('the session cookie and X-Forwarded-Proto', () => {
  async function cookieFor(trustProxy: TrustProxy, peer: string, headers: Record<string, string>): Promise<string> {
    const app = await buildTestApp({ startWorker: false, server: { trustProxy } })
    await app.runtime.store.users.create({ email: 'ops@example.com', password: PASSWORD })
    return login(app, peer, headers)
  }

  it('is Secure when a trusted proxy says the request came over https', async () => {
    expect(await cookieFor(true, '127.0.0.1', { 'x-forwarded-proto': 'https' })).toMatch(/; Secure(;|$)/)
    expect(await cookieFor(['127.0.0.1'], '127.0.0.1', { 'x-forwarded-proto': 'https' })).toMatch(/; Secure(;|$)/)
    expect(await cookieFor(true, '127.0.0.1', { 'x-forwarded-proto': 'http' })).not.toContain('Secure')
  })

  it('is not Secure on the strength of a header nobody trusted', async () => {
    expect(await cookieFor(false, '127.0.0.1', { 'x-forwarded-proto': 'https' })).not.toContain('Secure')
    expect(await cookieFor(['10.0.0.1'], '127.0.0.1', { 'x-forwarded-proto': 'https' })).not.toContain('Secure')
  })
})
