/**
 * The dashboard's API keys and password change with an admin session: a created key is shown
 * once and works as a Bearer key at once, in this process and any other serving the data
 * directory, until it is revoked; changing one's password ends every other session of the user.
 */
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { signIn, TEST_PASSWORD } from '../helpers/session.js'
import { createTenants } from '../helpers/tenants.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { sqliteOf } from '../../src/store/index.js'

const DOCS = { 'docs/guide.md': '# Guide\n\n## Start\n\nStart the widget.\n\n```js\nwidget.start()\n```\n' }

describe('API keys', () => {
  it('creates a key shown once, which works as a Bearer key in every process until revoked', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir, startWorker: false })
    // Another process serving the same data directory, as a second worker of `serve --workers` is.
    const other = await buildTestApp({ dataDir, startWorker: false })
    const { store } = app.runtime
    await seedLibrary(app, '/acme/widgets', DOCS)
    // Private: only a valid key (or a session) sees it, so the key's effect is visible.
    await store.libraries.update((await store.libraries.byId('/acme/widgets'))!.pk, { isPrivate: true })
    const admin = await signIn(app)
    const ask = (server: FastifyInstance, key?: string) =>
      server.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query: 'start' }, headers: key ? { authorization: `Bearer ${key}` } : {} })

    const created = await app.inject({ method: 'POST', url: '/api/keys', cookies: admin, payload: { name: '  ci  ' } })
    expect(created.statusCode, created.body).toBe(201)
    const { key, id, preview, createdAt } = created.json()
    expect(created.json()).toEqual({ id: expect.any(Number), name: 'ci', preview: expect.stringMatching(/^lct_\w{8}\.\.\.$/), createdAt: expect.any(String), key: expect.stringMatching(/^lct_[0-9A-Za-z]{40}$/) })
    expect(key.startsWith(preview.slice(0, -3))).toBe(true)
    expect(JSON.stringify(sqliteOf(store).prepare('SELECT * FROM api_keys').all())).not.toContain(key)

    expect((await ask(app)).statusCode).toBe(404)
    for (const server of [app, other]) expect((await ask(server, key)).statusCode).toBe(200)

    const listed = await app.inject({ url: '/api/keys', cookies: admin })
    expect(listed.statusCode).toBe(200)
    expect(listed.json()).toEqual({ keys: [{ id, name: 'ci', preview, createdAt, lastUsedAt: expect.any(String), revokedAt: null }] })
    expect(listed.body).not.toContain(key)

    const revoked = await app.inject({ method: 'DELETE', url: `/api/keys/${id}`, cookies: admin })
    expect(revoked.statusCode).toBe(200)
    expect(revoked.json()).toEqual({ id, name: 'ci', preview, createdAt, lastUsedAt: expect.any(String), revokedAt: expect.any(String) })
    expect(revoked.body).not.toContain(key)
    for (const server of [app, other]) {
      const refused = await ask(server, key)
      expect(refused.statusCode).toBe(401)
      expect(refused.json().error).toBe('invalid_api_key')
    }
    expect((await app.inject({ url: '/api/keys', cookies: admin })).json().keys[0].revokedAt).toBe(revoked.json().revokedAt)
  })

  it('answers 404 key_not_found for an unknown key, as `lectern keys revoke` does', async () => {
    const app = await buildTestApp({ startWorker: false })
    const res = await app.inject({ method: 'DELETE', url: '/api/keys/42', cookies: await signIn(app) })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: 'key_not_found', message: 'No API key with ID 42.' })
  })
})

describe('the operator\'s keys in the cloud', () => {
  it('lists only the install\'s keys and answers 404 for a teamspace\'s key, which keeps working', async () => {
    const app = await buildTestApp({ mode: 'cloud', startWorker: false })
    const tenants = await createTenants(app)
    const operator = await signIn(app)
    const mine = (await app.inject({ method: 'POST', url: '/api/keys', cookies: operator, payload: { name: 'operator ci' } })).json()
    const cliKey = await app.runtime.store.keys.create('made by lectern keys create')

    const listed = await app.inject({ url: '/api/keys', cookies: operator })
    expect(listed.statusCode).toBe(200)
    expect(listed.json().keys.map((k: { name: string }) => k.name)).toEqual(['operator ci', 'made by lectern keys create'])

    const acmeKey = (await app.runtime.store.keys.list({ teamId: tenants.acme.teamPk }))[0]!
    const refused = await app.inject({ method: 'DELETE', url: `/api/keys/${acmeKey.id}`, cookies: operator })
    expect(refused.statusCode).toBe(404)
    expect(refused.json()).toEqual({ error: 'key_not_found', message: `No API key with ID ${acmeKey.id}.` })
    expect((await app.runtime.store.keys.list({ teamId: tenants.acme.teamPk }))[0]!.revokedAt).toBeNull()
    expect(await app.runtime.store.keys.verify(tenants.acme.keys.owner)).toBeDefined()

    for (const id of [mine.id, cliKey.id]) expect((await app.inject({ method: 'DELETE', url: `/api/keys/${id}`, cookies: operator })).statusCode).toBe(200)
  })
})

describe('changing one\'s password', () => {
  const NEW_PASSWORD = 'a much longer passphrase now'
  const change = (app: FastifyInstance, cookies: { lectern_session: string }, currentPassword: string, newPassword: string) =>
    app.inject({ method: 'POST', url: '/api/auth/password', cookies, payload: { currentPassword, newPassword } })
  const works = async (app: FastifyInstance, cookies: { lectern_session: string }) => (await app.inject({ url: '/api/keys', cookies })).statusCode
  const login = (app: FastifyInstance, password: string) =>
    app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'admin@example.com', password } })

  it('ends every other session of the user and keeps this one', async () => {
    const app = await buildTestApp({ startWorker: false })
    const here = await signIn(app)
    const elsewhere = await signIn(app)
    const colleague = await signIn(app, 'admin', 'colleague@example.com')

    const res = await change(app, here, TEST_PASSWORD, NEW_PASSWORD)
    expect(res.statusCode, res.body).toBe(204)
    expect(res.body).toBe('')
    expect(await works(app, here)).toBe(200)
    expect(await works(app, elsewhere)).toBe(401)
    expect(await works(app, colleague)).toBe(200)
    expect((await login(app, TEST_PASSWORD)).statusCode).toBe(401)
    expect((await login(app, NEW_PASSWORD)).statusCode).toBe(200)
  })

  it('refuses a wrong current password with 401 not_authenticated and a weak new one with the rule of `lectern admin create`, changing nothing', async () => {
    const app = await buildTestApp({ startWorker: false })
    const here = await signIn(app)
    const elsewhere = await signIn(app)
    const hash = () => sqliteOf(app.runtime.store).prepare(`SELECT password_hash FROM users WHERE email = 'admin@example.com'`).pluck().get()
    const before = hash()

    const wrong = await change(app, here, 'not the password at all', NEW_PASSWORD)
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json()).toEqual({ error: 'not_authenticated', message: 'The current password is wrong; the password was not changed.' })

    const weak = await change(app, here, TEST_PASSWORD, 'short')
    expect(weak.statusCode).toBe(400)
    const rule = await app.runtime.store.users.create({ email: 'x@example.com', password: 'short' }).catch((err: Error) => err.message)
    expect(weak.json()).toEqual({ error: 'validation_error', message: rule })
    expect(rule).toBe('A password must have at least 12 characters.')

    expect(hash()).toBe(before)
    for (const cookies of [here, elsewhere]) expect(await works(app, cookies)).toBe(200)
    expect((await login(app, TEST_PASSWORD)).statusCode).toBe(200)
  })
})
