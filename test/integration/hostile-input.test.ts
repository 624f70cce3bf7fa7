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
import { sqliteOf } from '../../src/store/index.js'

const defer = suiteTeardown()
let app: FastifyInstance
let key: string
let admin: string
let member: string

beforeAll(async () => {
  const { privateKey } = licenseKeys(defer)
  app = await buildTestApp({ defer, startWorker: false })
  await installTestLicense(app, offlineLicense(privateKey))
  key = await createKey(app)
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
async function expectNothingStored(): Promise<void> {
  expect((await app.runtime.store.libraries.list()).map((l) => l.id)).toEqual(['/acme/widgets'])
  expect(await app.runtime.store.jobs.list()).toEqual([])
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
    const res = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query: 'render a widget', tokens: '1000' } })
    expect(res.statusCode, res.body).toBe(200)
  })

  /** A tools/call of `tool` through /mcp, with the arguments as raw JSON text (1e309 survives). */
  async function mcpCall(tool: string, args: string): Promise<{ isError?: boolean; content: Array<{ text: string }> }> {
    const payload = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${tool}","arguments":${args}}}`
    const res = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7 })
    return body.result
  }

  const tools = [
    ['query-docs', '"libraryId":"/acme/widgets","query":"render a widget"'],
    ['get-library-docs', '"context7CompatibleLibraryID":"/acme/widgets","topic":"render"'],
  ] as const

  for (const [tool, args] of tools) {
    it.each(['1e309', '-1e309', '-1', '1.5', '0', '100', '50001'])(`the MCP tool ${tool} refuses tokens %s as REST does`, async (tokens) => {
      const result = await mcpCall(tool, `{${args},"tokens":${tokens}}`)
      expect(result.isError).toBe(true)
      expect(result.content[0].text).toContain('tokens must be a whole number from 500 to 50000')
    })

    it(`the MCP tool ${tool} refuses tokens that are not a number`, async () => {
      const result = await mcpCall(tool, `{${args},"tokens":"abc"}`)
      expect(result.isError).toBe(true)
      expect(result.content[0].text).toMatch(/Invalid arguments for tool/)
    })

    it(`the MCP tool ${tool} answers a budget in range`, async () => {
      const result = await mcpCall(tool, `{${args},"tokens":1e3}`)
      expect(result.isError).toBeFalsy()
      expect(result.content[0].text).toContain('render(el)')
    })
  }
})

describe('multipart uploads over their limits', () => {
  const boundary = '----lectern-hostile'
  const field = (name: string, value = 'v') => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  const file = (name: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="f.json"\r\nContent-Type: application/octet-stream\r\n\r\n{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{}}\r\n`
  const fields = (n: number) => Array.from({ length: n }, (_, i) => field(`extra${i}`)).join('')
  const send = (url: string, parts: string, auth: Record<string, string>) =>
    app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: `${parts}--${boundary}--\r\n` })

  const endpoints = [
    ['/api/v2/add/openapi-upload', 'openapiFile', 10],
    ['/api/import-libraries', 'bundleFile', 5],
  ] as const

  for (const [url, fileField, maxFields] of endpoints) {
    const post = (parts: string) => send(url, parts, { authorization: `Bearer ${key}` })

    it.each([
      ['20 fields before the file', () => fields(20) + file(fileField)],
      ['one field over the limit before the file', () => fields(maxFields + 1) + file(fileField)],
      ['20 fields after the file', () => file(fileField) + fields(20)],
      ['100 fields and no file', () => fields(100)],
    ])(`POST ${url}: %s is 400 validation_error naming the field limit`, async (_, parts) => {
      const message = expectError(await post(parts()), 400, 'validation_error')
      expect(message).toBe(`The upload has more form fields than the ${maxFields} this endpoint takes.`)
      await expectNothingStored()
    })

    it(`POST ${url}: two files are 400 validation_error naming the file limit`, async () => {
      const message = expectError(await post(file(fileField) + file(fileField)), 400, 'validation_error')
      expect(message).toBe('The upload has more files than the 1 file this endpoint takes.')
      await expectNothingStored()
    })

    it.each(['__proto__', 'constructor', 'toString'])(`POST ${url}: a field named %s is 400 validation_error`, async (name) => {
      const message = expectError(await post(field(name) + file(fileField)), 400, 'validation_error')
      expect(message).toMatch(/may not be named __proto__, constructor/)
      await expectNothingStored()
    })
  }

  it.each(endpoints)('POST %s: a file part cut short is 400 validation_error at once', async (url, fileField) => {
    const res = await app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="f.json"\r\n\r\n{"openapi"`,
    })
    expect(expectError(res, 400, 'validation_error')).toMatch(/not valid multipart\/form-data/)
    await expectNothingStored()
  }, 10_000)

  it.each(endpoints)('POST %s without a boundary in the content type is 400 validation_error', async (url, fileField) => {
    const res = await app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data' }, payload: file(fileField) })
    expect(expectError(res, 400, 'validation_error')).toMatch(/not valid multipart\/form-data/)
    await expectNothingStored()
  })

  it('the import bundle upload from an admin session gets the same answer', async () => {
    const message = expectError(await send('/api/import-libraries', fields(30) + file('bundleFile'), { cookie: admin }), 400, 'validation_error')
    expect(message).toBe('The upload has more form fields than the 5 this endpoint takes.')
  })
})

describe('URLs with broken percent-encoding', () => {
  it.each([
    ['GET', '/api/%E0%A4%A'],
    ['GET', '/%ff%fe'],
    ['POST', '/mcp%E0'],
    ['GET', '/api/v2/libs/%zz'],
  ])('%s %s is 400 validation_error in the spec shape', async (method, url) => {
    const res = await app.inject({ method: method as 'GET' | 'POST', url })
    expect(expectError(res, 400, 'validation_error')).toMatch(/URL is not valid/)
    expect(res.body).not.toContain('FST_')
  })

  it.each([
    '/api/v2/libs/search?libraryName=%E0%A4%A',
    '/api/v2/context?libraryId=/acme/x&query=%zz',
    '/api/v2/context?libraryId=/acme/x&query=caf%E9',
  ])('GET %s (a query string that does not decode) is 400 validation_error, not a lenient guess', async (url) => {
    expect(expectError(await app.inject({ url }), 400, 'validation_error')).toBe('The URL is not valid: its query string has broken percent-encoding.')
  })

  it('decodes a well-formed query string as before: + and %20 are spaces, UTF-8 escapes are characters', async () => {
    const res = await app.inject({ url: '/api/v2/libs/search?libraryName=caf%C3%A9+nothing%20here' })
    expect(expectError(res, 404, 'no_libraries_found')).toBe('No libraries found matching "café nothing here".')
  })
})

describe('bodies Fastify refuses get Lectern\'s own messages', () => {
  const post = (headers: Record<string, string>, payload: string) =>
    app.inject({ method: 'POST', url: '/api/v2/add/openapi', headers: { authorization: `Bearer ${key}`, ...headers }, payload })

  it.each([
    ['JSON that does not parse', { 'content-type': 'application/json' }, '{"openApiUrl":', /^The body is not valid JSON\.$/],
    ['an empty JSON body', { 'content-type': 'application/json' }, '', /body is empty/],
    ['a content type no route reads', { 'content-type': 'text/xml' }, '<a/>', /Content-Type/],
    ['a form-encoded body', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=b', /Content-Type/],
  ])('%s is 400 validation_error', async (_, headers, payload, pattern) => {
    const message = expectError(await post(headers, payload), 400, 'validation_error')
    expect(message).toMatch(pattern)
    expect(message).not.toMatch(/content-type is set to|Unsupported Media Type/)
  })

  it('a body over the 1 MB limit is 413 payload_too_large', async () => {
    const res = await post({ 'content-type': 'application/json' }, JSON.stringify({ openApiUrl: 'x'.repeat(1024 * 1024) }))
    expect(expectError(res, 413, 'payload_too_large')).toMatch(/over the size/)
  })

  it.each([
    ['__proto__', '{"openApiUrl":"https://example.com/o.json","__proto__":{"admin":true}}'],
    ['constructor', '{"openApiUrl":"https://example.com/o.json","constructor":{"prototype":{"admin":true}}}'],
    ['a nested __proto__', '{"a":[{"b":{"__proto__":{"x":1}}}]}'],
  ])('valid JSON with a %s key is refused as such', async (_, payload) => {
    const message = expectError(await post({ 'content-type': 'application/json' }, payload), 400, 'validation_error')
    expect(message).toBe('JSON bodies may not contain __proto__ or constructor keys.')
    await expectNothingStored()
  })

  it('on /mcp the same refusal is a JSON-RPC error', async () => {
    const res = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{}}' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'JSON bodies may not contain __proto__ or constructor keys.' }, id: null })
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
    await expectNothingStored()
    const rows = sqliteOf(app.runtime.store).prepare('SELECT source_url FROM libraries').all() as Array<{ source_url: string }>
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
      await expectNothingStored()
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
    expect(expectError(res, 400, 'validation_error')).toBe('The body must be an object.')
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
