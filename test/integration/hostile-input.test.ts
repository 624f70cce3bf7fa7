/**
 * Hostile input gets the spec's error body, `{error, message}` with a status of src/errors.ts:
 * never Fastify's own shape, never a 500, never an echo of the input, and nothing stored. Covers a
 * request line over Node's header limit (on a real socket), token budgets that are not numbers
 * in range (REST and MCP), source URLs carrying credentials, bodies nested 100,000 levels deep on
 * every JSON route, and admin and keyed routes that refuse an anonymous caller before they look
 * at the body.
 */
import http from 'node:http'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { installTestLicense, licenseKeys, offlineLicense } from '../airgap/helpers.js'
import { sessionCookie } from '../backup/helpers.js'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { suiteTeardown } from '../helpers/tmp.js'

const defer = suiteTeardown()
let app: FastifyInstance
let key: string
let admin: string
let member: string

beforeAll(async () => {
  const { privateKey } = licenseKeys(defer)
  app = await buildTestApp({ defer, startWorker: false })
  installTestLicense(app, offlineLicense(privateKey))
  key = createKey(app)
  admin = await sessionCookie(app, 'admin')
  member = await sessionCookie(app, 'member')
  await seedLibrary(app, '/acme/widgets', { 'docs/guide.md': '# Guide\n\n## Render a widget\n\nMount a widget:\n\n```js\nrender(el)\n```\n' })
})

/** The spec's error body and nothing else, with its status. */
function expectError(res: LightMyRequestResponse, status: number, error: string): string {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
  expect(res.json()).toEqual({ error, message: expect.any(String) })
  return res.json().message
}

/** Nothing a refused request sent was stored. */
function expectNothingStored(): void {
  expect(app.runtime.store.libraries.list().map((l) => l.id)).toEqual(['/acme/widgets'])
  expect(app.runtime.store.jobs.list()).toEqual([])
}

describe('a query string over the header limit, on a real socket', () => {
  it('answers 400 validation_error in the spec shape, without echoing the query', async () => {
    const server = await buildTestApp({ defer, startWorker: false })
    const address = new URL(await server.listen({ port: 0, host: '127.0.0.1' }))
    const query = 'x'.repeat(100 * 1024)
    const res = await new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
      const request = http.get({ host: address.hostname, port: address.port, path: `/api/v2/context?libraryId=/acme/widgets&query=${query}` }, (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], body }))
      })
      request.on('error', reject)
    })
    expect(res.status).toBe(400)
    expect(res.type).toBe('application/json; charset=utf-8')
    expect(JSON.parse(res.body)).toEqual({ error: 'validation_error', message: expect.stringContaining('16 KB') })
    expect(res.body).not.toContain('xxxxxxxx')
  })
})

describe('token budgets', () => {
  it.each(['Infinity', '1e309', '-1', '1.5', 'abc', '-Infinity', '1e400'])('REST tokens=%s is 400 validation_error', async (tokens) => {
    const res = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query: 'render a widget', tokens } })
    expectError(res, 400, 'validation_error')
  })

  it('a budget in range still answers', async () => {
    const res = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query: 'render a widget', tokens: '1e3' } })
    expect(res.statusCode, res.body).toBe(200)
  })

  it.each(['1e309', '-1', '1.5', '"abc"', '0'])('the MCP tool refuses tokens %s as invalid arguments', async (tokens) => {
    const payload = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get-library-docs","arguments":{"context7CompatibleLibraryID":"/acme/widgets","topic":"render","tokens":${tokens}}}}`
    const res = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, result: { isError: true } })
    expect(body.result.content[0].text).toMatch(/Input validation error: Invalid arguments for tool get-library-docs/)
  })
})

describe('source URLs with credentials are refused at submission and never stored', () => {
  it.each([
    ['/api/v2/add/openapi', { openApiUrl: 'https://user:hunter2@api.example.com/spec.json' }],
    ['/api/v2/add/openapi', { openApiUrl: 'https://token-only-hunter2@api.example.com/spec.json' }],
    ['/api/v2/add/llmstxt', { llmstxtUrl: 'https://user:hunter2@docs.example.com/llms.txt' }],
    ['/api/v2/add/website', { websiteUrl: 'https://user:hunter2@docs.example.com/guide/' }],
    ['/api/v2/add/website', { websiteUrl: 'https://docs.example.com/guide/', websiteBaseUrl: 'https://user:hunter2@docs.example.com/' }],
    ['/api/v2/add/repo/github', { docsRepoUrl: 'https://user:hunter2@github.com/acme/other' }],
    ['/api/v2/add/repo/git', { docsRepoUrl: 'https://user:hunter2@git.example.com/acme/other.git' }],
  ])('%s %j', async (url, payload) => {
    const res = await app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}` }, payload })
    const message = expectError(res, 400, 'validation_error')
    expect(message).toMatch(/credentials/)
    expect(message).not.toContain('hunter2')
    expectNothingStored()
    const rows = app.runtime.store.db.prepare('SELECT source_url FROM libraries').all() as Array<{ source_url: string }>
    expect(JSON.stringify(rows)).not.toContain('hunter2')
  })
})

describe('bodies nested 100,000 levels deep', () => {
  const arrays = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
  const objects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`
  const payloads = [
    ['arrays', arrays],
    ['objects', objects],
    ['arrays inside an import payload', `{"libraries":[{"project":"/acme/deep","codeSnippets":[],"infoSnippets":[],"extra":${arrays}}]}`],
    ['arrays inside a field', `{"docsRepoUrl":${arrays}}`],
  ] as const
  const routes: Array<[string, string, () => Record<string, string>]> = [
    ['POST', '/api/v2/add/repo/github', () => ({ authorization: `Bearer ${key}` })],
    ['POST', '/api/v2/add/openapi', () => ({ authorization: `Bearer ${key}` })],
    ['POST', '/api/v2/add/llmstxt', () => ({ authorization: `Bearer ${key}` })],
    ['POST', '/api/v2/add/website', () => ({ authorization: `Bearer ${key}` })],
    ['POST', '/api/v2/add/confluence', () => ({ authorization: `Bearer ${key}` })],
    ['POST', '/api/v2/add/notion', () => ({ authorization: `Bearer ${key}` })],
    ['POST', '/api/v1/refresh', () => ({ authorization: `Bearer ${key}` })],
    ['POST', '/api/import-libraries', () => ({ authorization: `Bearer ${key}` })],
    ['POST', '/api/auth/login', () => ({})],
    ['PUT', '/api/backup/config', () => ({ cookie: admin })],
    ['PUT', '/api/settings/embedding', () => ({ cookie: admin })],
  ]

  for (const [method, url, headers] of routes) {
    it.each(payloads)(`${method} ${url}: %s is 400 validation_error`, async (_, payload) => {
      const res = await app.inject({ method: method as 'POST' | 'PUT', url, headers: { ...headers(), 'content-type': 'application/json' }, payload })
      expect(expectError(res, 400, 'validation_error')).toMatch(/nests arrays and objects more than 64 levels deep/)
      expectNothingStored()
    })
  }

  it.each(payloads)('POST /mcp: %s is refused with 400 and a JSON-RPC error', async (_, payload) => {
    const res = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: expect.stringMatching(/64 levels deep/) }, id: null })
  })

  it('a body nested 64 levels deep is parsed, and then judged by the route schema', async () => {
    const payload = `${'['.repeat(64)}${']'.repeat(64)}`
    const res = await app.inject({ method: 'PUT', url: '/api/settings/embedding', headers: { cookie: admin, 'content-type': 'application/json' }, payload })
    expect(expectError(res, 400, 'validation_error')).toMatch(/^body must be object/)
  })
})

describe('routes that need credentials refuse before they read the body', () => {
  const invalid: Array<[string, string, string | Record<string, unknown>]> = [
    ['PUT', '/api/settings/embedding', { provider: 'nope', dimensions: -1 }],
    ['PUT', '/api/backup/config', { bogus: true, keep: 'all of them' }],
    ['POST', '/api/backups/..%2F..%2Fetc%2Fpasswd/restore?dryRun=maybe', {}],
    ['GET', '/api/backups/not-an-archive/download', ''],
    ['PUT', '/api/settings/embedding', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
  ]

  it.each(invalid)('an anonymous %s %s with an invalid request is 401 not_authenticated', async (method, url, payload) => {
    const res = await app.inject({ method: method as 'GET', url, ...(method === 'GET' ? {} : { payload, headers: { 'content-type': 'application/json' } }) })
    const message = expectError(res, 401, 'not_authenticated')
    expect(message).not.toMatch(/body|params|querystring|must/)
  })

  it.each(invalid)('a member session on %s %s is 403 forbidden', async (method, url, payload) => {
    const res = await app.inject({ method: method as 'GET', url, headers: { cookie: member, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) }, ...(method === 'GET' ? {} : { payload }) })
    expectError(res, 403, 'forbidden')
  })

  it('an admin session gets the validation error', async () => {
    const res = await app.inject({ method: 'PUT', url: '/api/settings/embedding', headers: { cookie: admin }, payload: { provider: 'nope' } })
    expectError(res, 400, 'validation_error')
  })

  it.each([
    ['/api/v2/add/repo/github', { docsRepoUrl: 42 }],
    ['/api/v2/add/openapi', {}],
    ['/api/v1/refresh', { libraryName: '' }],
  ])('an anonymous POST %s with an invalid body is 401 invalid_api_key', async (url, payload) => {
    expectError(await app.inject({ method: 'POST', url, payload }), 401, 'invalid_api_key')
  })
})
