import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { execa } from 'execa'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { renameLibrary } from '../../src/library/admin.js'
import { writeSetting } from '../../src/settings.js'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { mcpStdio } from '../helpers/cli.js'
import { codeBlocks, readmeSection } from '../helpers/readme.js'
import { suiteTeardown } from '../helpers/tmp.js'

const DOCS = {
  'docs/routing.md': `# Routing

## Register a route

Call app.route with a method, a URL and a handler to register a route on the widget server.

\`\`\`js
app.route({ method: 'GET', url: '/hello', handler: async () => ({ hello: 'world' }) })
\`\`\`
`,
  'docs/hooks.md': `# Hooks

## onRequest

The onRequest hook runs before the handler of every request, for example to check authentication.

\`\`\`js
app.addHook('onRequest', async (request) => { await checkAuth(request) })
\`\`\`
`,
}

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean }

async function connectHttp(base: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'lectern-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }))
  return client
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult

const textOf = (result: ToolResult) => result.content.map((c) => c.text).join('\n')

describe('MCP over streamable HTTP', () => {
  const defer = suiteTeardown()
  let app: FastifyInstance
  let base: string
  let client: Client
  let widgetsPk: number

  beforeAll(async () => {
    app = await buildTestApp({ defer })
    widgetsPk = (await seedLibrary(app, '/acme/widgets', DOCS)).libraryPk
    await seedLibrary(app, '/acme/widgets', { 'docs/v1.md': '# Old\n\n## Old route\n\nThe v1 way to register a route on the widget server.\n\n```js\napp.get(\'/\', h)\n```\n' }, 'v1.0.0')
    await seedLibrary(app, '/acme/moved', DOCS)
    await seedLibrary(app, '/pallets/flask', DOCS)
    await renameLibrary(app.runtime.store, '/acme/moved', '/acme/moved-here')
    await app.runtime.store.libraries.create({ id: '/acme/pending', title: 'pending', sourceKind: 'github', sourceUrl: 'x' })
    base = await app.listen({ port: 0, host: '127.0.0.1' })
    client = await connectHttp(base, { 'x-context7-source': 'test-suite' })
    defer(() => client.close())
  })

  it('lists the three tools with descriptions that teach when to call them', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['get-library-docs', 'query-docs', 'resolve-library-id'])
    const resolve = tools.find((t) => t.name === 'resolve-library-id')!
    expect(resolve.description).toMatch(/before query-docs/)
    expect(resolve.inputSchema.required).toEqual(['libraryName'])
  })

  it('resolve-library-id ranks libraries, misspelt names included, with ID, snippets and versions', async () => {
    const result = await call(client, 'resolve-library-id', { libraryName: 'widgts', query: 'routing' })
    expect(result.isError).toBeFalsy()
    const text = textOf(result)
    expect(text).toContain('- Library ID: /acme/widgets')
    expect(text).toMatch(/- Code Snippets: \d+/)
    expect(text).toContain('- Versions: v1.0.0')
    // Two letters swapped is one edit, as a wrong letter is: "flaks" is as near flask as "flasq".
    for (const typo of ['flaks', 'flasq']) expect(textOf(await call(client, 'resolve-library-id', { libraryName: typo, query: 'routing' })).split('\n').find((line) => line.startsWith('- Library ID:'))).toBe('- Library ID: /pallets/flask')
  })

  it('query-docs and get-library-docs return the txt context with the right snippet first', async () => {
    const query = textOf(await call(client, 'query-docs', { libraryId: '/acme/widgets', query: 'check authentication before every request' }))
    expect(query.split('\n')[0]).toBe('### onRequest')
    expect(query).toContain("app.addHook('onRequest'")
    const legacy = await call(client, 'get-library-docs', { context7CompatibleLibraryID: '/acme/widgets', topic: 'register a route', tokens: 500 })
    expect(legacy.isError).toBeFalsy()
    expect(textOf(legacy).split('\n')[0]).toBe('### Register a route')
    const pinned = textOf(await call(client, 'query-docs', { libraryId: '/acme/widgets/v1.0.0', query: 'register a route' }))
    expect(pinned).toContain("app.get('/', h)")
  })

  it.each([
    ['an unknown library', { libraryId: '/acme/nothing', query: 'x' }, /not found.*resolve-library-id/s],
    ['a malformed ID', { libraryId: 'not an id', query: 'x' }, /Invalid library ID/],
    ['a library not yet finalized', { libraryId: '/acme/pending', query: 'x' }, /still being processed/],
    ['a redirected library', { libraryId: '/acme/moved', query: 'x' }, /moved to \/acme\/moved-here.*libraryId "\/acme\/moved-here"/s],
    ['an unknown tag', { libraryId: '/acme/widgets@v9', query: 'x' }, /Available versions: v1\.0\.0/],
    ['a question of spaces alone', { libraryId: '/acme/widgets', query: '   ' }, /The question \(query\) has no words/],
    ['an empty question', { libraryId: '/acme/widgets', query: '' }, /The question \(query\) has no words/],
  ])('answers %s with a readable isError result', async (_case, args, message) => {
    const result = await call(client, 'query-docs', args)
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(message)
  })

  it('answers a search that matches nothing with a readable isError result', async () => {
    const result = await call(client, 'resolve-library-id', { libraryName: 'zzzzqqq' })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain('No libraries found')
  })

  it('records usage per library, day, client kind and transport', async () => {
    await app.inject({ url: '/api/v2/context?libraryId=/acme/widgets&query=hooks&type=json', headers: { 'x-context7-source': 'cli' } })
    await app.inject({ url: '/api/v2/context?libraryId=/acme/widgets&query=hooks' })
    const rows = await app.runtime.usage.forLibrary(widgetsPk)
    const count = (client: string, transport: string) => rows.find((r) => r.client === client && r.transport === transport)?.requests ?? 0
    expect(count('test-suite', 'mcp-http')).toBeGreaterThanOrEqual(3)
    expect(count('cli', 'rest-json')).toBe(1)
    expect(count('api', 'rest-txt')).toBe(1)
    expect(rows.every((r) => r.day === new Date().toISOString().slice(0, 10))).toBe(true)
  })

  it('answers /ping, and GET /mcp with 405 and a JSON-RPC error', async () => {
    expect(await (await fetch(`${base}/ping`)).json()).toEqual({ status: 'ok', message: 'pong' })
    const get = await fetch(`${base}/mcp`)
    expect(get.status).toBe(405)
    expect(await get.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } })
  })

  it('answers a POST whose Accept lacks JSON and event streams with 406', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(res.status).toBe(406)
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: expect.any(Object) })
  })

  it('refuses a bad key with HTTP 401 and a JSON-RPC error, and accepts a good one', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer lct_nope' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringContaining('This is not an API key') } })
    const keyed = await connectHttp(base, { authorization: `Bearer ${await createKey(app)}` })
    expect((await keyed.listTools()).tools).toHaveLength(3)
    await keyed.close()
  })

  it('reports and enforces the require-key setting', async () => {
    expect(await (await fetch(`${base}/api/auth/mcp`)).json()).toEqual({ enabled: false })
    await writeSetting(app.runtime.store.settings, 'mcp.requireKey', 'true')
    try {
      expect(await (await fetch(`${base}/api/auth/mcp`)).json()).toEqual({ enabled: true })
      await expect(connectHttp(base)).rejects.toThrow()
      const keyed = await connectHttp(base, { authorization: `Bearer ${await createKey(app)}` })
      expect(textOf(await call(keyed, 'query-docs', { libraryId: '/acme/widgets', query: 'register a route' }))).toContain('app.route')
      await keyed.close()
    } finally {
      await writeSetting(app.runtime.store.settings, 'mcp.requireKey', 'false')
    }
  })
})

describe('MCP rate limits', () => {
  it('turns a tool call past the anonymous limit into a readable isError result', async () => {
    const app = await buildTestApp({ rateLimit: { anonymous: 2, keyed: 100, windowSeconds: 86_400 } })
    await seedLibrary(app, '/acme/widgets', DOCS)
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    const client = await connectHttp(base)
    try {
      for (let i = 0; i < 2; i++) expect((await call(client, 'query-docs', { libraryId: '/acme/widgets', query: 'route' })).isError).toBeFalsy()
      const refused = await call(client, 'query-docs', { libraryId: '/acme/widgets', query: 'route' })
      expect(refused.isError).toBe(true)
      expect(textOf(refused)).toMatch(/Rate limit exceeded: retry in \d+ s, or use an API key/)
    } finally {
      await client.close()
    }
  })
})

describe('MCP over stdio (lectern mcp)', () => {
  it('serves the same tools on a data directory, with nothing but protocol on stdout', async () => {
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/acme/widgets', DOCS)
    const dataDir = app.lecternOptions.config.dataDir
    const client = new Client({ name: 'lectern-test', version: '1.0.0' })
    await client.connect(
      mcpStdio(dataDir),
    )
    try {
      expect((await client.listTools()).tools).toHaveLength(3)
      const result = await call(client, 'query-docs', { libraryId: '/acme/widgets', query: 'register a route' })
      expect(textOf(result).split('\n')[0]).toBe('### Register a route')
      expect((await call(client, 'resolve-library-id', { libraryName: 'widgets' })).isError).toBeFalsy()
    } finally {
      await client.close()
    }
  })
})

describe("the README's curl smoke test of /mcp", () => {
  it('runs as written against a listening server: tools/list without a key, query-docs with one', async () => {
    const example = codeBlocks('bash', readmeSection('MCP: connecting AI tools')).find((block) => block.includes('/mcp'))!
    // Two commands, each a curl line continued with backslashes.
    const commands = example.replaceAll('\\\n', ' ').trim().split('\n')
    expect(commands).toHaveLength(2)
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/fastify/fastify', DOCS)
    const key = await createKey(app)
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const run = async (command: string) => {
      const { stdout } = await execa('bash', ['-c', command.replaceAll('http://127.0.0.1:3000', base)], { env: { LECTERN_KEY: key } })
      return JSON.parse(stdout) as { result: { tools?: Array<{ name: string }>; content?: Array<{ text: string }>; isError?: boolean } }
    }
    const listed = await run(commands[0]!)
    expect(listed.result.tools!.map((t) => t.name)).toEqual(expect.arrayContaining(['resolve-library-id', 'query-docs']))
    const answered = await run(commands[1]!)
    expect(answered.result.isError).toBeFalsy()
    expect(answered.result.content![0]!.text.split('\n')[0]).toBe('### Register a route')
    // Without the Accept header the README names, the transport refuses the call.
    const refused = await execa('bash', ['-c', commands[0]!.replace(" -H 'Accept: application/json, text/event-stream'", '').replaceAll('http://127.0.0.1:3000', base)])
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { message: expect.stringContaining('Not Acceptable') } })
  })
})
