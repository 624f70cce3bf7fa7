/**
 * OpenID Connect single sign-on against a real provider (oidc-provider on loopback, started here):
 * the Authorization Code flow with PKCE, state, nonce and the RFC 9207 iss check through
 * openid-client; users created on their first sign-in from the email and name claims, admins by
 * group, groups kept at each sign-in; a key rotation at the provider; forged, replayed and stale
 * answers refused; password sign-in off but for the break-glass admin; every outcome audited.
 * The browser's part is played by following the redirects with each site's own cookies.
 */
import type { FastifyInstance } from 'fastify'
import { describe, expect, it, onTestFinished } from 'vitest'
import YAML from 'yaml'
import { resolveConfig } from '../../src/config.js'
import { returnPath } from '../../src/sso/oidc.js'
import type { AuditEvent } from '../../src/store/audit.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { startForwardProxy } from '../helpers/forward-proxy.js'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js'
import { codeBlocks, readmeSection } from '../helpers/readme.js'
import { signIn as passwordSignIn, TEST_PASSWORD } from '../helpers/session.js'

const PUBLIC_URL = 'http://lectern.test'
const CALLBACK = `${PUBLIC_URL}/api/auth/sso/callback`

const ACCOUNTS = {
  'sub-ada': { email: 'ada@example.com', name: 'Ada Lovelace', groups: ['lectern-admins', 'payments'] },
  'sub-bob': { email: 'bob@example.com', name: 'Bob Builder', groups: ['payments'] },
  'sub-eve': { email: 'eve@example.com', name: 'Eve', groups: [], emailVerified: false },
}

async function setUp(sso: Record<string, unknown> = {}) {
  const idp = await startOidcProvider({ redirectUri: CALLBACK, accounts: ACCOUNTS })
  onTestFinished(() => idp.close())
  process.env.LECTERN_SSO_CLIENT_SECRET = idp.clientSecret
  onTestFinished(() => void delete process.env.LECTERN_SSO_CLIENT_SECRET)
  const app = await buildTestApp({
    startWorker: false,
    mail: { publicUrl: PUBLIC_URL },
    sso: { issuer: idp.issuer, clientId: idp.clientId, scopes: ['openid', 'email', 'profile', 'groups'], adminGroups: ['lectern-admins'], ...sso },
  })
  onTestFinished(() => app.close())
  return { app, idp }
}

const cookieOf = (setCookies: string[], name: string) => setCookies.map((c) => c.split(';')[0]).find((c) => c.startsWith(`${name}=`))?.slice(name.length + 1)
const setCookiesOf = (header: string | string[] | undefined) => (header === undefined ? [] : Array.isArray(header) ? header : [header])

/** Starts a sign-in at Lectern and follows the provider's redirects until it sends the browser back; returns the callback URL and the flow cookie. */
async function throughProvider(app: FastifyInstance, idp: TestProvider, subject: string): Promise<{ callback: string; flow: string }> {
  idp.signInAs(subject)
  const start = await app.inject({ url: '/api/auth/sso/login?returnTo=/libraries' })
  expect(start.statusCode, start.body).toBe(302)
  const flow = cookieOf(setCookiesOf(start.headers['set-cookie']), 'lectern_sso')!
  expect(flow).toBeTruthy()
  const jar = new Map<string, string>()
  let url = String(start.headers.location)
  expect(url.startsWith(`${idp.issuer}/`)).toBe(true)
  for (let hop = 0; hop < 10 && !url.startsWith(CALLBACK); hop++) {
    const answer = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } })
    for (const set of answer.headers.getSetCookie()) {
      const [pair] = set.split(';')
      const at = pair.indexOf('=')
      jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
    expect([302, 303], `${url}: ${await answer.clone().text()}`).toContain(answer.status)
    url = new URL(answer.headers.get('location')!, url).href
  }
  expect(url.startsWith(CALLBACK)).toBe(true)
  return { callback: url, flow }
}

const callback = (app: FastifyInstance, url: string, flow?: string) =>
  app.inject({ url: url.slice(PUBLIC_URL.length), headers: flow === undefined ? {} : { cookie: `lectern_sso=${flow}` } })

async function signIn(app: FastifyInstance, idp: TestProvider, subject: string): Promise<{ session: string; location: string }> {
  const { callback: url, flow } = await throughProvider(app, idp, subject)
  const back = await callback(app, url, flow)
  expect(back.statusCode, back.body).toBe(302)
  return { session: cookieOf(setCookiesOf(back.headers['set-cookie']), 'lectern_session') ?? '', location: String(back.headers.location) }
}

const me = async (app: FastifyInstance, session: string) => (await app.inject({ url: '/api/session', headers: { cookie: `lectern_session=${session}` } })).json()

async function auditLog(app: FastifyInstance): Promise<AuditEvent[]> {
  return await app.runtime.store.audit.list({}, { limit: 100 })
}

describe('single sign-on (OpenID Connect)', () => {
  it('creates users on their first sign-in, makes the admin group admins, keeps groups, and survives a key rotation', async () => {
    const { app, idp } = await setUp()
    expect((await app.inject({ url: '/api/session' })).json().sso).toEqual({ label: 'single sign-on', passwordSignIn: true })

    const ada = await signIn(app, idp, 'sub-ada')
    expect(ada.location).toBe('/libraries')
    expect(await me(app, ada.session)).toMatchObject({ user: { email: 'ada@example.com', role: 'admin' } })
    const bob = await signIn(app, idp, 'sub-bob')
    expect(await me(app, bob.session)).toMatchObject({ user: { email: 'bob@example.com', role: 'member' } })
    const { users } = app.runtime.store
    const bobUser = (await users.byEmail('bob@example.com'))!
    expect(await users.groupsOf(bobUser.id)).toEqual(['payments'])
    // A user made by SSO has no password.
    expect((await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'bob@example.com', password: 'sso' } })).statusCode).toBe(401)

    // The provider moves bob to the admin group and rotates its signing key: the next sign-in follows both.
    idp.accounts.get('sub-bob')!.groups = ['lectern-admins']
    const oldKey = idp.keyId()
    await idp.rotateKeys()
    expect(idp.keyId()).not.toBe(oldKey)
    const again = await signIn(app, idp, 'sub-bob')
    expect(await me(app, again.session)).toMatchObject({ user: { email: 'bob@example.com', role: 'admin' } })
    expect(await users.groupsOf(bobUser.id)).toEqual(['lectern-admins'])
    expect((await users.list()).filter((u) => u.email === 'bob@example.com')).toHaveLength(1)

    // Sign-out ends the Lectern session.
    expect((await app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie: `lectern_session=${again.session}` } })).statusCode).toBe(204)
    expect((await me(app, again.session)).user).toBeNull()

    const log = await auditLog(app)
    expect(log.filter((e) => e.action === 'user.created').map((e) => [e.target, e.details])).toEqual([
      ['bob@example.com', { role: 'member', via: 'sso' }],
      ['ada@example.com', { role: 'admin', via: 'sso' }],
    ])
    expect(log.find((e) => e.action === 'user.role.changed')).toMatchObject({ target: 'bob@example.com', details: { role: 'admin', from: 'member', via: 'sso' } })
    expect(log.filter((e) => e.action === 'signin.succeeded').map((e) => e.details)).toEqual([
      { method: 'sso', groups: ['lectern-admins'] },
      { method: 'sso', groups: ['payments'] },
      { method: 'sso', groups: ['lectern-admins', 'payments'] },
    ])
    expect(JSON.stringify(log)).not.toContain(idp.clientSecret)
  })

  it("grants a restricted library to a group: its members' sessions and keys reach it over REST and MCP, as the provider's groups say at each sign-in", async () => {
    const { app, idp } = await setUp()
    await seedLibrary(app, '/acme/payments', { 'docs/refunds.md': '# Refunds\n\n## Issue a refund\n\nIssue a refund with the refund call.\n\n```js\nrefund(charge)\n```\n' })
    idp.accounts.set('sub-carol', { email: 'carol@example.com', name: 'Carol', groups: ['support'] })
    const ada = await signIn(app, idp, 'sub-ada')
    const restricted = await app.inject({ method: 'PUT', url: '/api/libraries/acme/payments/access', headers: { cookie: `lectern_session=${ada.session}` }, payload: { access: 'restricted', groups: ['payments'] } })
    expect(restricted.statusCode, restricted.body).toBe(200)
    expect(restricted.json()).toMatchObject({ access: 'restricted', users: [], groups: ['payments'] })

    const bob = await signIn(app, idp, 'sub-bob')
    const carol = await signIn(app, idp, 'sub-carol')
    const { users, keys } = app.runtime.store
    const keyOf = async (email: string) => `Bearer ${(await keys.create(email, { userId: (await users.byEmail(email))!.id, teamId: null })).key}`
    const bobKey = await keyOf('bob@example.com')
    const carolKey = await keyOf('carol@example.com')
    const context = async (headers: Record<string, string>) => (await app.inject({ url: '/api/v2/context?libraryId=/acme/payments&query=refund', headers })).statusCode
    const mcp = async (authorization: string) => {
      const answer = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'query-docs', arguments: { libraryId: '/acme/payments', query: 'refund' } } },
      })
      return JSON.stringify(answer.json().result)
    }
    expect(await context({ cookie: `lectern_session=${bob.session}` })).toBe(200)
    expect(await context({ authorization: bobKey })).toBe(200)
    expect(await mcp(bobKey)).toContain('refund(charge)')
    expect(await context({ cookie: `lectern_session=${carol.session}` })).toBe(404)
    expect(await context({ authorization: carolKey })).toBe(404)
    expect(await mcp(carolKey)).toContain('not found')

    // The provider moves bob out of the group and carol into it: their next sign-in moves their keys too.
    idp.accounts.get('sub-bob')!.groups = []
    idp.accounts.get('sub-carol')!.groups = ['payments']
    await signIn(app, idp, 'sub-bob')
    await signIn(app, idp, 'sub-carol')
    expect(await context({ authorization: bobKey })).toBe(404)
    expect(await context({ authorization: carolKey })).toBe(200)
    const rule = (await auditLog(app)).find((e) => e.action === 'access.rule.changed')
    expect(rule).toMatchObject({ actor: { kind: 'user', name: 'ada@example.com' }, target: '/acme/payments', details: { access: 'restricted', users: [], groups: ['payments'] } })

    // The same grant through a namespace rule, the library handed back to it.
    const admin = { cookie: `lectern_session=${ada.session}` }
    await app.inject({ method: 'PUT', url: '/api/libraries/acme/payments/access', headers: admin, payload: { access: 'default' } })
    expect(await context({ authorization: bobKey })).toBe(200)
    const namespace = await app.inject({ method: 'PUT', url: '/api/library-access/namespaces', headers: admin, payload: { namespace: '/acme/*', access: 'restricted', groups: ['payments'] } })
    expect(namespace.statusCode, namespace.body).toBe(200)
    expect(await context({ authorization: bobKey })).toBe(404)
    expect(await context({ authorization: carolKey })).toBe(200)
    expect(await mcp(carolKey)).toContain('refund(charge)')
  })

  it('refuses a forged, replayed or unverified answer, and audits each refusal', async () => {
    const { app, idp } = await setUp()
    const refusal = async (answer: Awaited<ReturnType<typeof callback>>) => {
      expect(answer.statusCode).toBe(302)
      expect(String(answer.headers.location)).toMatch(/^\/\?signInError=/)
      expect(cookieOf(setCookiesOf(answer.headers['set-cookie']), 'lectern_session')).toBeUndefined()
      return decodeURIComponent(String(answer.headers.location).slice('/?signInError='.length))
    }

    // A state that is not the flow's.
    const first = await throughProvider(app, idp, 'sub-bob')
    const forged = new URL(first.callback)
    forged.searchParams.set('state', 'not-the-state')
    expect(await refusal(await callback(app, forged.href, first.flow))).toMatch(/refused/)
    // An answer that claims another issuer (RFC 9207).
    const second = await throughProvider(app, idp, 'sub-bob')
    const otherIssuer = new URL(second.callback)
    otherIssuer.searchParams.set('iss', 'http://127.0.0.1:1')
    expect(await refusal(await callback(app, otherIssuer.href, second.flow))).toMatch(/refused/)
    // A sealed flow this server did not make.
    const third = await throughProvider(app, idp, 'sub-bob')
    expect(await refusal(await callback(app, third.callback, `${third.flow.slice(0, -4)}AAAA`))).toMatch(/not one this server made/)

    // Replayed: the answer once used, again without the flow (cleared) and with it (the code is spent).
    const used = await throughProvider(app, idp, 'sub-bob')
    expect((await callback(app, used.callback, used.flow)).statusCode).toBe(302)
    expect(await refusal(await callback(app, used.callback))).toMatch(/No sign-in is in progress/)
    expect(await refusal(await callback(app, used.callback, used.flow))).toMatch(/refused/)

    // The provider says the email is not verified.
    const eve = await throughProvider(app, idp, 'sub-eve')
    expect(await refusal(await callback(app, eve.callback, eve.flow))).toMatch(/eve@example\.com is not verified/)
    expect(await app.runtime.store.users.byEmail('eve@example.com')).toBeUndefined()

    const failed = (await auditLog(app)).filter((e) => e.action === 'signin.failed')
    expect(failed).toHaveLength(6)
    for (const event of failed) expect(event).toMatchObject({ outcome: 'failure', details: { method: 'sso', reason: 'not_authenticated' }, address: expect.any(String) })
  })

  it('refuses an ID token that no key the provider publishes signed', async () => {
    const { app, idp } = await setUp()
    const flow = await throughProvider(app, idp, 'sub-bob')
    idp.publishOtherKey()
    const answer = await callback(app, flow.callback, flow.flow)
    expect(decodeURIComponent(String(answer.headers.location))).toMatch(/^\/\?signInError=The identity provider's ID token is not signed by a key it publishes/)
    expect(await app.runtime.store.users.byEmail('bob@example.com')).toBeUndefined()
  })

  it('with password sign-in off, only the break-glass admin signs in with a password', async () => {
    const { app, idp } = await setUp({ passwordSignIn: false, breakGlassAdmins: ['ops@example.com', 'dana@example.com'] })
    const { users } = app.runtime.store
    await users.create({ email: 'ops@example.com', password: TEST_PASSWORD, role: 'admin' })
    await users.create({ email: 'dana@example.com', password: TEST_PASSWORD, role: 'member' })
    await users.create({ email: 'carl@example.com', password: TEST_PASSWORD, role: 'admin' })
    const login = (email: string, password = TEST_PASSWORD) => app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } })

    expect((await app.inject({ url: '/api/session' })).json().sso).toEqual({ label: 'single sign-on', passwordSignIn: false })
    const carl = await login('carl@example.com')
    expect([carl.statusCode, carl.json().error, carl.json().message]).toEqual([403, 'forbidden', 'Password sign-in is off on this install: sign in with single sign-on.'])
    // The same answer whatever the password: it tells nothing of whether it was right.
    expect((await login('carl@example.com', 'wrong password of carl')).body).toBe(carl.body)
    expect((await login('ops@example.com')).statusCode).toBe(200)
    expect((await login('ops@example.com', 'wrong password of ops')).statusCode).toBe(401)
    // A break-glass email that is not an admin's signs in no more than a wrong password.
    expect((await login('dana@example.com')).statusCode).toBe(401)
    // A provider's user who claims an existing user's email without saying it is verified does not take that user over.
    idp.accounts.set('sub-mallory', { email: 'carl@example.com', name: 'Mallory', groups: [], emailVerified: null })
    const mallory = await throughProvider(app, idp, 'sub-mallory')
    const taken = await callback(app, mallory.callback, mallory.flow)
    expect(decodeURIComponent(String(taken.headers.location))).toMatch(/A user carl@example\.com already exists, and the identity provider does not say the email is verified/)
    expect(cookieOf(setCookiesOf(taken.headers['set-cookie']), 'lectern_session')).toBeUndefined()
    // A break-glass admin is local only: the provider cannot claim that address, in any case, and the admin keeps its role.
    idp.accounts.set('sub-ops', { email: 'OPS@example.com', name: 'Ops', groups: [] })
    const ops = await throughProvider(app, idp, 'sub-ops')
    const claimed = await callback(app, ops.callback, ops.flow)
    expect(decodeURIComponent(String(claimed.headers.location))).toMatch(/OPS@example\.com is a break-glass admin of this install, who signs in with a password only/)
    expect((await users.byEmail('ops@example.com'))?.role).toBe('admin')
    expect((await login('OPS@example.com')).statusCode).toBe(200)
    // SSO still works for everyone else.
    const bob = await signIn(app, idp, 'sub-bob')
    expect(await me(app, bob.session)).toMatchObject({ user: { email: 'bob@example.com', role: 'member' } })
    expect((await auditLog(app)).filter((e) => e.action === 'signin.failed').map((e) => e.details.reason ?? 'wrong password')).toEqual([
      'forbidden',
      'not_authenticated',
      'wrong password',
      'wrong password',
      'password sign-in is off',
      'password sign-in is off',
    ])
  })

  it("reaches the provider through the outbound proxy (http_proxy), as every other request does", async () => {
    const proxy = await startForwardProxy()
    const saved = { http_proxy: process.env.http_proxy, no_proxy: process.env.no_proxy }
    process.env.http_proxy = proxy.url
    delete process.env.no_proxy
    onTestFinished(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    })
    const { app, idp } = await setUp()
    expect((await me(app, (await signIn(app, idp, 'sub-ada')).session)).user).toMatchObject({ email: 'ada@example.com' })
    const paths = proxy.seen.map((line) => line.replace(idp.issuer, '<issuer>'))
    expect(paths).toContain('GET <issuer>/.well-known/openid-configuration')
    expect(paths.some((line) => /^POST <issuer>\/token/.test(line))).toBe(true)
    expect(paths.some((line) => /^GET <issuer>\/jwks/.test(line))).toBe(true)
  })

  it('returns only to a path of the dashboard', () => {
    for (const path of ['/libraries', '/audit?action=key', '/a/b#c']) expect(returnPath(path)).toBe(path)
    for (const path of ['//evil.example', '/\\evil.example', '/\t/evil.example', '/\n/evil.example', 'https://evil.example', 'evil', '', undefined]) expect(returnPath(path)).toBe('/')
  })

  it("reads the README's configuration as documented", () => {
    const [example] = codeBlocks('yaml', readmeSection('Single sign-on (on-premise)'))
    const { config } = resolveConfig({}, {}, { path: 'lectern.yaml', values: YAML.parse(example) as Record<string, unknown> })
    expect(config.mail.publicUrl).toBe('https://lectern.example.com')
    expect(config.sso).toEqual({
      issuer: 'https://idp.example.com/realms/acme',
      clientId: 'lectern',
      scopes: ['openid', 'email', 'profile', 'groups'],
      groupsClaim: 'groups',
      adminGroups: ['lectern-admins'],
      passwordSignIn: false,
      breakGlassAdmins: ['ops@example.com'],
      clockToleranceSeconds: 60,
      label: 'single sign-on',
    })
  })

  it('refuses a configuration that lacks the client ID or the public address, and is absent in the cloud', async () => {
    await expect(buildTestApp({ startWorker: false, sso: { issuer: 'http://127.0.0.1:9' } })).rejects.toThrow(
      'sso.issuer is set but sso.clientId (LECTERN_SSO_CLIENT_ID) and mail.publicUrl (LECTERN_PUBLIC_URL: the address users reach the dashboard at) are not.',
    )
    await expect(buildTestApp({ startWorker: false, sso: { issuer: 'http://idp.example.com' } })).rejects.toThrow(/http only on a loopback address/)
    await expect(buildTestApp({ startWorker: false, sso: { clientId: 'lectern' } })).rejects.toThrow(/sso.clientId is set but sso.issuer is not/)
    const withPublicUrl = { startWorker: false, mail: { publicUrl: PUBLIC_URL } }
    await expect(buildTestApp({ ...withPublicUrl, sso: { issuer: 'http://127.0.0.1:9', clientId: 'x', passwordSignIn: false } })).rejects.toThrow(/breakGlassAdmins names nobody/)
    expect(() => resolveConfig({}, { LECTERN_SSO_BREAK_GLASS_ADMINS: 'ops@example.com, notanemail' })).toThrow(/expected email addresses/)
    expect(() => resolveConfig({}, { LECTERN_SSO_PASSWORD_SIGN_IN: 'nope' })).toThrow(/expected true or false, not "nope"/)
    expect(resolveConfig({}, { LECTERN_SSO_SCOPES: 'openid email  profile,groups' }).config.sso.scopes).toEqual(['openid', 'email', 'profile', 'groups'])
    // An unreachable provider sends the browser back to the sign-in page, which says why.
    const unreachable = await buildTestApp({ ...withPublicUrl, sso: { issuer: 'http://127.0.0.1:9', clientId: 'x' } })
    const login = await unreachable.inject({ url: '/api/auth/sso/login' })
    expect(login.statusCode).toBe(302)
    expect(decodeURIComponent(String(login.headers.location))).toContain('could not be reached')
    await unreachable.close()
    const cloud = await buildTestApp({ mode: 'cloud', startWorker: false, mail: { publicUrl: PUBLIC_URL }, sso: { issuer: 'http://127.0.0.1:9', clientId: 'x' } })
    expect((await cloud.inject({ url: '/api/auth/sso/login' })).statusCode).toBe(404)
    expect((await cloud.inject({ url: '/api/session' })).json().sso).toBeUndefined()
    await cloud.close()
  })
})

describe('single sign-on configured from the dashboard', () => {
  async function setUpUnconfigured() {
    const idp = await startOidcProvider({ redirectUri: CALLBACK, accounts: ACCOUNTS })
    onTestFinished(() => idp.close())
    const app = await buildTestApp({ startWorker: false })
    onTestFinished(() => app.close())
    const admin = { cookie: `lectern_session=${(await passwordSignIn(app, 'admin', 'ops@example.com')).lectern_session}` }
    const save = (body: Record<string, unknown>, headers: Record<string, string> = admin) => app.inject({ method: 'PUT', url: '/api/settings/sso', headers, payload: body })
    const full = { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, publicUrl: PUBLIC_URL, scopes: ['openid', 'email', 'profile', 'groups'], adminGroups: ['lectern-admins'], label: 'Acme ID' }
    return { app, idp, admin, save, full }
  }

  it('is saved once the provider answers, applies at the next sign-in without a restart, never shows the secret, and is removed', async () => {
    const { app, idp, admin, save, full } = await setUpUnconfigured()
    expect((await app.inject({ url: '/api/settings/sso', headers: admin })).json()).toMatchObject({ source: 'off', settings: null, clientSecretSet: false })
    const unconfigured = await app.inject({ url: '/api/auth/sso/login' })
    expect(unconfigured.statusCode).toBe(302)
    expect(decodeURIComponent(String(unconfigured.headers.location))).toMatch(/^\/\?signInError=Single sign-on is not configured/)

    const saved = await save(full)
    expect(saved.statusCode, saved.body).toBe(200)
    expect(saved.json()).toMatchObject({ source: 'dashboard', publicUrl: PUBLIC_URL, redirectUri: CALLBACK, clientSecretSet: true, settings: { issuer: idp.issuer, label: 'Acme ID', passwordSignIn: true, groupsClaim: 'groups' } })
    expect(saved.body).not.toContain(idp.clientSecret)
    expect((await me(app, '')).sso).toEqual({ label: 'Acme ID', passwordSignIn: true })
    const ada = await signIn(app, idp, 'sub-ada')
    expect((await me(app, ada.session)).user).toEqual({ email: 'ada@example.com', role: 'admin' })

    // A change without the secret keeps it; the stored secret is sealed.
    expect((await save({ ...full, clientSecret: undefined, label: 'Acme SSO' })).json()).toMatchObject({ clientSecretSet: true, settings: { label: 'Acme SSO' } })
    expect((await me(app, '')).sso.label).toBe('Acme SSO')
    expect((await signIn(app, idp, 'sub-bob')).location).toBe('/libraries')
    const rows = await app.runtime.store.settings.get<string>('sso.clientSecret')
    expect(rows).toBeTruthy()
    expect(rows).not.toContain(idp.clientSecret)
    const changes = (await auditLog(app)).filter((e) => e.action === 'settings.changed' && e.target === 'sso')
    expect(changes.map((e) => e.details.clientSecret)).toEqual(['kept', 'set'])
    expect(JSON.stringify(await auditLog(app))).not.toContain(idp.clientSecret)

    const removed = await app.inject({ method: 'DELETE', url: '/api/settings/sso', headers: admin })
    expect(removed.json()).toMatchObject({ source: 'off', settings: null, clientSecretSet: false })
    expect(String((await app.inject({ url: '/api/auth/sso/login' })).headers.location)).toContain('signInError=')
    expect((await me(app, '')).sso).toBeUndefined()
    expect(await app.runtime.store.settings.get('sso.clientSecret')).toBeUndefined()
  })

  it('refuses what would not work or would lock admins out, changing nothing', async () => {
    const { app, admin, save, full } = await setUpUnconfigured()
    const refused = async (body: Record<string, unknown>, headers?: Record<string, string>) => {
      const answer = await save(body, headers)
      return { status: answer.statusCode, error: answer.json().error as string, message: answer.json().message as string }
    }
    expect(await refused({ ...full, issuer: 'http://127.0.0.1:9' })).toMatchObject({ status: 503, error: 'sso_unavailable', message: expect.stringContaining('http://127.0.0.1:9') })
    expect(await refused({ ...full, issuer: 'http://idp.example.com' })).toMatchObject({ status: 400, error: 'validation_error', message: expect.stringContaining('http only on a loopback address') })
    expect(await refused({ ...full, publicUrl: undefined })).toMatchObject({ status: 400, error: 'validation_error', message: expect.stringContaining('public address') })
    expect(await refused({ ...full, publicUrl: 'lectern.test/path' })).toMatchObject({ status: 400, error: 'validation_error' })
    expect(await refused({ ...full, passwordSignIn: false })).toMatchObject({ status: 400, error: 'validation_error', message: expect.stringContaining('break-glass') })
    expect(await refused({ ...full, passwordSignIn: false, breakGlassAdmins: ['nobody@example.com'] })).toMatchObject({ status: 400, message: expect.stringContaining('break-glass') })
    expect(await refused({ ...full, colour: 'blue' })).toMatchObject({ status: 400, error: 'validation_error' })
    const member = { cookie: `lectern_session=${(await passwordSignIn(app, 'member', 'mel@example.com')).lectern_session}` }
    expect((await refused(full, member)).status).toBe(403)
    expect((await refused(full, {})).status).toBe(401)
    expect((await app.inject({ url: '/api/settings/sso', headers: admin })).json().source).toBe('off')
    expect((await auditLog(app)).filter((e) => e.action === 'settings.changed')).toEqual([])

    // Password sign-in off, with the break-glass admin named: members are refused, the admin is not.
    expect((await save({ ...full, passwordSignIn: false, breakGlassAdmins: ['OPS@example.com'] })).statusCode).toBe(200)
    const password = (email: string) => app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: TEST_PASSWORD } })
    expect((await password('mel@example.com')).statusCode).toBe(403)
    expect((await password('ops@example.com')).statusCode).toBe(200)
  })

  it('shows a configuration from lectern.yaml or the environment, which the dashboard cannot change', async () => {
    const { app, idp } = await setUp()
    const admin = { cookie: `lectern_session=${(await passwordSignIn(app, 'admin', 'ops@example.com')).lectern_session}` }
    expect((await app.inject({ url: '/api/settings/sso', headers: admin })).json()).toMatchObject({ source: 'startup', publicUrlFixed: true, clientSecretSet: true, settings: { issuer: idp.issuer } })
    const put = await app.inject({ method: 'PUT', url: '/api/settings/sso', headers: admin, payload: { issuer: idp.issuer, clientId: 'other' } })
    expect(put.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('lectern.yaml or the environment') })
    expect((await app.inject({ method: 'DELETE', url: '/api/settings/sso', headers: admin })).statusCode).toBe(403)
  })
})
