/**
 * Every endpoint of the dashboard API but the password change (any session's own) is for admins: no session is 401 not_authenticated (an
 * API key is no session), a member's session 403 forbidden, both before the input is looked at;
 * an admin's bad input is 400 in the spec's error object, and changes nothing.
 */
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { signIn } from '../helpers/session.js'
import { suiteTeardown } from '../helpers/tmp.js'
import { sqliteOf } from '../../src/store/index.js'

interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  url: string
  payload?: Record<string, unknown>
}

/** Each endpoint with a valid request, and bad inputs with the error code each gets. */
const ENDPOINTS: Array<{ call: Call; bad: Array<[Call, string]> }> = [
  {
    call: { method: 'GET', url: '/api/libraries' },
    bad: [
      [{ method: 'GET', url: '/api/libraries?pageSize=101' }, 'validation_error'],
      [{ method: 'GET', url: '/api/libraries?page=0' }, 'validation_error'],
      [{ method: 'GET', url: '/api/libraries?page=two' }, 'validation_error'],
      [{ method: 'GET', url: `/api/libraries?q=${'x'.repeat(501)}` }, 'validation_error'],
    ],
  },
  {
    call: { method: 'GET', url: '/api/libraries/acme/widgets' },
    bad: [
      [{ method: 'GET', url: '/api/libraries/ac$me/widgets' }, 'invalid_library_id'],
      [{ method: 'GET', url: '/api/libraries/acme/widgets@v1.0.0' }, 'validation_error'],
    ],
  },
  {
    call: { method: 'PATCH', url: '/api/libraries/acme/widgets', payload: { id: '/acme/widgets-core' } },
    bad: [
      [{ method: 'PATCH', url: '/api/libraries/acme/widgets', payload: {} }, 'validation_error'],
      [{ method: 'PATCH', url: '/api/libraries/acme/widgets', payload: { id: '' } }, 'validation_error'],
      [{ method: 'PATCH', url: '/api/libraries/acme/widgets', payload: { id: '/only-one-segment' } }, 'invalid_library_id'],
      [{ method: 'PATCH', url: '/api/libraries/acme/widgets', payload: { id: '/acme/widgets-core@v2' } }, 'validation_error'],
      [{ method: 'PATCH', url: '/api/libraries/acme/widgets', payload: { id: '/acme/widgets' } }, 'validation_error'],
    ],
  },
  {
    call: { method: 'DELETE', url: '/api/libraries/acme/widgets' },
    bad: [[{ method: 'DELETE', url: '/api/libraries/acme/wid%24gets' }, 'invalid_library_id']],
  },
  {
    call: { method: 'POST', url: '/api/libraries/acme/widgets/versions', payload: { tag: 'v1.0.0' } },
    bad: [
      [{ method: 'POST', url: '/api/libraries/acme/widgets/versions', payload: {} }, 'validation_error'],
      [{ method: 'POST', url: '/api/libraries/acme/widgets/versions', payload: { tag: 'v1 --upload-pack=x' } }, 'validation_error'],
      [{ method: 'POST', url: '/api/libraries/acme/widgets/versions', payload: { tag: 'v'.repeat(101) } }, 'validation_error'],
    ],
  },
  {
    call: { method: 'DELETE', url: '/api/libraries/acme/widgets/versions/v1.0.0' },
    bad: [
      // A blank tag names the default version, which is the library itself.
      [{ method: 'DELETE', url: '/api/libraries/acme/widgets/versions/%20' }, 'validation_error'],
    ],
  },
  { call: { method: 'GET', url: '/api/keys' }, bad: [] },
  {
    call: { method: 'POST', url: '/api/keys', payload: { name: 'ci' } },
    bad: [
      [{ method: 'POST', url: '/api/keys', payload: {} }, 'validation_error'],
      [{ method: 'POST', url: '/api/keys', payload: { name: '' } }, 'validation_error'],
      [{ method: 'POST', url: '/api/keys', payload: { name: '   ' } }, 'validation_error'],
      [{ method: 'POST', url: '/api/keys', payload: { name: 'k'.repeat(101) } }, 'validation_error'],
    ],
  },
  {
    call: { method: 'DELETE', url: '/api/keys/1' },
    bad: [
      [{ method: 'DELETE', url: '/api/keys/abc' }, 'validation_error'],
      [{ method: 'DELETE', url: '/api/keys/0' }, 'validation_error'],
    ],
  },
]

const defer = suiteTeardown()
let app: FastifyInstance
let member: { lectern_session: string }
let admin: { lectern_session: string }
let ended: { lectern_session: string }
let key: string

beforeAll(async () => {
  app = await buildTestApp({ defer, startWorker: false })
  await seedLibrary(app, '/acme/widgets', { 'docs/guide.md': '# Guide\n\n## Start\n\nStart the widget.\n\n```js\nwidget.start()\n```\n' })
  member = await signIn(app, 'member')
  admin = await signIn(app, 'admin')
  ended = await signIn(app, 'admin', 'gone@example.com')
  await app.inject({ method: 'POST', url: '/api/auth/logout', cookies: ended })
  key = await createKey(app)
})

/** What the test can see change: libraries, their versions, keys and users' passwords and sessions. */
const snapshot = () =>
  sqliteOf(app.runtime.store)
    .prepare(`SELECT (SELECT json_group_array(id) FROM libraries) || (SELECT json_group_array(tag) FROM library_versions)
      || (SELECT json_group_array(name || coalesce(revoked_at, '')) FROM api_keys) || (SELECT json_group_array(password_hash) FROM users)
      || (SELECT count(*) FROM sessions) || (SELECT count(*) FROM jobs)`)
    .pluck()
    .get()

describe.each(ENDPOINTS.map((e) => [`${e.call.method} ${e.call.url.split('?')[0]}`, e] as const))('%s', (_name, { call, bad }) => {
  it('is 401 not_authenticated without a session, with an API key, or with a session that ended, changing nothing', async () => {
    const before = snapshot()
    for (const extra of [{}, { headers: { authorization: `Bearer ${key}` } }, { cookies: ended }]) {
      const res = await app.inject({ ...call, ...extra })
      expect(res.statusCode).toBe(401)
      expect(res.json()).toEqual({ error: 'not_authenticated', message: expect.stringContaining('admin session') })
    }
    // Checked before the body: without credentials a bad body is 401 too, not a 400 describing the schema.
    for (const [badCall] of bad) expect((await app.inject(badCall)).statusCode).toBe(401)
    expect(snapshot()).toBe(before)
  })

  it('is 403 forbidden for a member, changing nothing', async () => {
    const before = snapshot()
    const res = await app.inject({ ...call, cookies: member })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'forbidden', message: 'This endpoint is for admins only.' })
    for (const [badCall] of bad) expect((await app.inject({ ...badCall, cookies: member })).statusCode).toBe(403)
    expect(snapshot()).toBe(before)
  })

  if (bad.length > 0) it('is 400 in the spec error object for bad input, changing nothing', async () => {
    const before = snapshot()
    for (const [badCall, code] of bad) {
      const res = await app.inject({ ...badCall, cookies: admin })
      expect(res.statusCode, `${badCall.method} ${badCall.url} ${JSON.stringify(badCall.payload)}`).toBe(400)
      expect(res.json()).toEqual({ error: code, message: expect.any(String) })
    }
    expect(snapshot()).toBe(before)
  })
})

describe('a path segment over 100 characters', () => {
  it('is refused by the router for every caller with 400 validation_error, as on every route', async () => {
    for (const url of [`/api/libraries/${'a'.repeat(101)}/widgets`, `/api/libraries/acme/widgets/versions/${'v'.repeat(101)}`]) {
      for (const cookies of [{}, member, admin]) {
        const res = await app.inject({ method: 'DELETE', url, cookies })
        expect(res.statusCode).toBe(400)
        expect(res.json()).toEqual({ error: 'validation_error', message: 'A path segment of the URL is too long.' })
      }
    }
    expect(await app.runtime.store.libraries.byId('/acme/widgets')).toBeDefined()
  })
})

describe('POST /api/auth/password, for any signed-in user', () => {
  const change = (payload: Record<string, unknown>, extra: object = {}) => app.inject({ method: 'POST', url: '/api/auth/password', payload, ...extra })
  const valid = { currentPassword: 'correct horse battery staple', newPassword: 'a new long passphrase' }

  it('is 401 not_authenticated without a session, with an API key, or with a session that ended, before the body is read, changing nothing', async () => {
    const before = snapshot()
    for (const extra of [{}, { headers: { authorization: `Bearer ${key}` } }, { cookies: ended }]) {
      for (const payload of [valid, {}]) {
        const res = await change(payload, extra)
        expect(res.statusCode).toBe(401)
        expect(res.json().error).toBe('not_authenticated')
      }
    }
    expect(snapshot()).toBe(before)
  })

  it('lets an on-premise member change their own password: bad input 400 and a wrong current password 401 change nothing', async () => {
    const own = await signIn(app, 'member', 'own@example.com')
    const other = await signIn(app, 'member', 'own@example.com')
    const before = snapshot()
    for (const payload of [{}, { currentPassword: valid.currentPassword }, { ...valid, newPassword: 'short' }]) {
      const res = await change(payload, { cookies: own })
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().error).toBe('validation_error')
    }
    const wrong = await change({ ...valid, currentPassword: 'not my password at all' }, { cookies: own })
    expect(wrong.statusCode).toBe(401)
    expect(snapshot()).toBe(before)

    const res = await change(valid, { cookies: own })
    expect(res.statusCode, res.body).toBe(204)
    expect((await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'own@example.com', password: valid.newPassword } })).statusCode).toBe(200)
    // Their other session ended; the admin's password and sessions are untouched.
    expect((await app.inject({ url: '/api/session', cookies: other })).json().user).toBeNull()
    expect((await app.inject({ url: '/api/keys', cookies: admin })).statusCode).toBe(200)
  })
})
