/**
 * A JSON body's types are its own: a wrong one is refused 400 validation_error and changes
 * nothing, never converted (Ajv's coercion is for query strings and path parameters, which arrive
 * as text). Each admin route with a typed field, and the sign-in, with the wrong types an
 * adversarial run sent them.
 */
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { signIn, TEST_PASSWORD } from '../helpers/session.js'
import { suiteTeardown } from '../helpers/tmp.js'

const defer = suiteTeardown()
let app: FastifyInstance
let cookies: { lectern_session: string }

beforeAll(async () => {
  app = await buildTestApp({ startWorker: false, defer })
  await seedLibrary(app, '/acme/widgets', { 'README.md': '# Widgets\n\n## Use\n\nCall widgets.\n\n```js\nwidgets()\n```\n' })
  cookies = await signIn(app)
})

const send = (method: 'POST' | 'PUT', url: string, payload: unknown) => app.inject({ method, url, payload: payload as Record<string, unknown>, cookies })

describe('wrong JSON types in a body', () => {
  it.each([
    ['PUT', '/api/settings/mcp', { requireKey: null }],
    ['PUT', '/api/settings/mcp', { requireKey: 0 }],
    ['PUT', '/api/settings/mcp', { requireKey: 1 }],
    ['PUT', '/api/settings/mcp', { requireKey: [false] }],
    ['PUT', '/api/settings/mcp', { requireKey: 'false' }],
    ['PUT', '/api/library-access/default', { restrictNewLibraries: 1 }],
    ['PUT', '/api/library-access/default', { restrictNewLibraries: 'true' }],
    ['PUT', '/api/libraries/acme/widgets/access', { access: ['restricted'] }],
    ['POST', '/api/keys', { name: 42 }],
    ['POST', '/api/keys', { name: ['ci'] }],
  ] as const)('%s %s %j is 400 validation_error, and nothing changes', async (method, url, payload) => {
    const before = { requireKey: (await app.inject({ url: '/api/settings', cookies })).json().mcp.requireKey, keys: (await app.runtime.store.keys.list()).length, access: (await app.inject({ url: '/api/library-access', cookies })).json() }
    const res = await send(method, url, payload)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toMatchObject({ error: 'validation_error' })
    expect((await app.inject({ url: '/api/settings', cookies })).json().mcp.requireKey).toBe(before.requireKey)
    expect(await app.runtime.store.keys.list()).toHaveLength(before.keys)
    expect((await app.inject({ url: '/api/library-access', cookies })).json()).toEqual(before.access)
  })

  it('refuses a sign-in whose email is an array, and signs in with the string', async () => {
    const array = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: ['admin@example.com'], password: TEST_PASSWORD } })
    expect(array.statusCode).toBe(400)
    expect(array.json()).toMatchObject({ error: 'validation_error' })
    expect(array.cookies).toEqual([])
    const number = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'admin@example.com', password: 12345678 } })
    expect(number.statusCode).toBe(400)
    const right = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'admin@example.com', password: TEST_PASSWORD } })
    expect(right.statusCode).toBe(200)
  })

  it('still converts query strings, which are text: ?dryRun=true and ?page=2 are a boolean and a number', async () => {
    const listed = await app.inject({ url: '/api/libraries', query: { page: '1', pageSize: '10' }, cookies })
    expect(listed.statusCode, listed.body).toBe(200)
    expect(listed.json()).toMatchObject({ page: 1, pageSize: 10 })
  })
})
