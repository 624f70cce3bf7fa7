/**
 * GET /api/v2/libs/metrics against a known sequence of requests: REST text and JSON, the CLI and
 * web surfaces, MCP over HTTP from two clients with two keys and two anonymous addresses, the
 * edge proxy's country header; the days window; who may read (on-premise insiders, in the cloud
 * the owning teamspace only); and that neither a question nor an address reaches the database.
 */
import { readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { execa } from 'execa'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { codeBlocks, readmeSection } from '../helpers/readme.js'
import { runCli, mcpStdio } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { startServer } from '../helpers/server.js'
import { signIn } from '../helpers/session.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { collectLog, send, workerOf, type Answer } from '../helpers/workers.js'
import { sqliteOf } from '../../src/store/index.js'
import { membersAllowed } from '../../src/tenancy/plans.js'

const DOCS = {
  'docs/routing.md': '# Routing\n\n## Middleware\n\nRegister routing middleware with app.use before the routes.\n\n```js\napp.use(logger)\n```\n',
}
const QUESTION = 'how do I configure routing middleware for zebras'
const DAY_MS = 86_400_000
const today = () => new Date().toISOString().slice(0, 10)

type Headers = Record<string, string>

function context(app: FastifyInstance, libraryId: string, options: { type?: 'json'; headers?: Headers; remoteAddress?: string; query?: string } = {}) {
  return app.inject({
    url: '/api/v2/context',
    query: { libraryId, query: options.query ?? QUESTION, ...(options.type ? { type: options.type } : {}) },
    headers: options.headers,
    remoteAddress: options.remoteAddress,
  })
}

async function mcpQuery(app: FastifyInstance, libraryId: string, headers: Headers, remoteAddress = '127.0.0.1', query = QUESTION) {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    remoteAddress,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'query-docs', arguments: { libraryId, query } } },
  })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json().result.isError, res.body).toBeUndefined()
}

const metrics = (app: FastifyInstance, query: Record<string, string>, headers: Headers = {}) => app.inject({ url: '/api/v2/libs/metrics', query, headers })
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

describe('library metrics', () => {
  it('reports surfaces, MCP unique users per client, topics and countries of a known sequence of requests, without keeping a question or an address', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir, metrics: { countryHeader: 'cf-ipcountry' } })
    await seedLibrary(app, '/acme/router', DOCS)
    const keyA = await createKey(app, 'a')
    const keyB = await createKey(app, 'b')

    // REST: 2 text answers (txt), 1 JSON answer from the ctx7 CLI (cli), 1 from a web page (page).
    expect((await context(app, '/acme/router', { remoteAddress: '10.0.0.1', headers: { 'cf-ipcountry': 'DE' } })).statusCode).toBe(200)
    expect((await context(app, '/acme/router', { remoteAddress: '10.0.0.2', headers: { 'cf-ipcountry': 'de' }, query: 'routing with params' })).statusCode).toBe(200)
    expect((await context(app, '/acme/router', { type: 'json', headers: { ...bearer(keyA), 'x-context7-source': 'cli', 'cf-ipcountry': 'US' } })).statusCode).toBe(200)
    // Not a country: unassigned (XX), Cloudflare's Tor marker (T1), nothing at all.
    expect((await context(app, '/acme/router', { headers: { 'x-context7-source': 'web', 'cf-ipcountry': 'XX' } })).statusCode).toBe(200)

    // MCP: key A from cursor twice and from claude-code once, key B from claude-code, and
    // anonymous cursor users at 10.0.0.1 (twice) and 10.0.0.2.
    await mcpQuery(app, '/acme/router', { ...bearer(keyA), 'x-context7-source': 'cursor', 'cf-ipcountry': 'T1' })
    await mcpQuery(app, '/acme/router', { ...bearer(keyA), 'x-context7-source': 'cursor', 'cf-ipcountry': 'US' })
    await mcpQuery(app, '/acme/router', { ...bearer(keyA), 'x-context7-source': 'claude-code', 'cf-ipcountry': 'US' })
    await mcpQuery(app, '/acme/router', { ...bearer(keyB), 'x-context7-source': 'claude-code', 'cf-ipcountry': 'FR' })
    await mcpQuery(app, '/acme/router', { 'x-context7-source': 'cursor', 'cf-ipcountry': 'DE' }, '10.0.0.1')
    await mcpQuery(app, '/acme/router', { 'x-context7-source': 'cursor', 'cf-ipcountry': 'DE' }, '10.0.0.1', 'middleware order')
    await mcpQuery(app, '/acme/router', { 'x-context7-source': 'cursor' }, '10.0.0.2')

    const res = await metrics(app, { libraryId: '/acme/router' }, bearer(keyB))
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(Object.keys(body).sort()).toEqual(['countries', 'daily', 'mcpClients', 'topics', 'total'])
    expect(body.total).toEqual({ page: 1, txt: 2, mcp: 7, cli: 1 })
    expect(body.daily).toEqual([{ date: today(), page: 1, txt: 2, mcp: 7, cli: 1, total: 11 }])
    expect(body.mcpClients).toEqual({ dailyData: [{ date: today(), uniqueUsersByClient: { cursor: 3, 'claude-code': 2 }, totalUniqueUsers: 4 }] })
    // Ten questions mention middleware and routing, nine configure and zebras; "how do I for with" are stopwords.
    expect(body.topics).toEqual([
      { topic: 'middleware', count: 10 },
      { topic: 'routing', count: 10 },
      { topic: 'configure', count: 9 },
      { topic: 'zebras', count: 9 },
      { topic: 'order', count: 1 },
      { topic: 'params', count: 1 },
    ])
    expect(body.countries).toEqual([
      { country: 'DE', count: 4 },
      { country: 'US', count: 3 },
      { country: 'unknown', count: 3 },
      { country: 'FR', count: 1 },
    ])

    await app.close()
    const files = ['lectern.db', 'lectern.db-wal'].map((name) => join(dataDir, name)).filter(existsSync)
    const stored = Buffer.concat(files.map((file) => readFileSync(file)))
    // What is kept is found in the same bytes: a topic.
    expect(stored.includes(Buffer.from('zebras'))).toBe(true)
    for (const raw of [QUESTION, 'routing with params', 'middleware order', '10.0.0.1', '10.0.0.2', keyA, keyB]) {
      expect(stored.includes(Buffer.from(raw)), raw).toBe(false)
    }
  })

  it('counts the days asked for, oldest first, omitting days without requests', async () => {
    const app = await buildTestApp()
    const { libraryPk } = await seedLibrary(app, '/acme/router', DOCS)
    const key = await createKey(app)
    const now = Date.now()
    const { usage } = app.runtime
    usage.record(libraryPk, 'api', 'rest-txt', new Date(now - 40 * DAY_MS))
    usage.record(libraryPk, 'mcp-server', 'rest-txt', new Date(now - 2 * DAY_MS))
    usage.record(libraryPk, 'cursor', 'mcp-http', new Date(now - 2 * DAY_MS), { user: 'key:1' })
    expect((await context(app, '/acme/router', { headers: bearer(key) })).statusCode).toBe(200)
    const day = (ago: number) => new Date(now - ago * DAY_MS).toISOString().slice(0, 10)

    const month = (await metrics(app, { libraryId: '/acme/router' }, bearer(key))).json()
    expect(month.total).toEqual({ page: 0, txt: 2, mcp: 2, cli: 0 })
    expect(month.daily).toEqual([
      { date: day(2), page: 0, txt: 0, mcp: 2, cli: 0, total: 2 },
      { date: day(0), page: 0, txt: 1, mcp: 0, cli: 0, total: 1 },
    ])
    expect(month.mcpClients.dailyData).toEqual([{ date: day(2), uniqueUsersByClient: { cursor: 1 }, totalUniqueUsers: 1 }])

    // The users of two days ago were hashed under a salt that did not outlive the flush.
    expect(sqliteOf(app.runtime.store).prepare('SELECT day FROM usage_salt').all()).toEqual([])
    usage.record(libraryPk, 'cursor', 'mcp-http', new Date(now), { user: 'key:1' })
    await usage.flush(new Date(now))
    expect(sqliteOf(app.runtime.store).prepare('SELECT day FROM usage_salt').all()).toEqual([{ day: day(0) }])
    await usage.flush(new Date(now + DAY_MS))
    expect(sqliteOf(app.runtime.store).prepare('SELECT day FROM usage_salt').all()).toEqual([])

    const one = (await metrics(app, { libraryId: '/acme/router', days: '1' }, bearer(key))).json()
    expect(one.daily).toEqual([{ date: day(0), page: 0, txt: 1, mcp: 1, cli: 0, total: 2 }])
    expect(one.mcpClients.dailyData).toEqual([{ date: day(0), uniqueUsersByClient: { cursor: 1 }, totalUniqueUsers: 1 }])
    expect(one.total).toEqual({ page: 0, txt: 2, mcp: 3, cli: 0 })
    const year = (await metrics(app, { libraryId: '/acme/router', days: '365' }, bearer(key))).json()
    expect(year.daily.map((p: { date: string }) => p.date)).toEqual([day(40), day(2), day(0)])

    for (const days of ['0', '366', '1.5', 'week']) {
      const refused = await metrics(app, { libraryId: '/acme/router', days }, bearer(key))
      expect(refused.statusCode, days).toBe(400)
      expect(refused.json().error).toBe('validation_error')
    }
    expect((await metrics(app, {}, bearer(key))).json().error).toBe('validation_error')
    expect((await metrics(app, { libraryId: 'acme' }, bearer(key))).json().error).toBe('invalid_library_id')
    const unknown = await metrics(app, { libraryId: '/acme/nothing' }, bearer(key))
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().error).toBe('library_not_found')
  })

  it('needs an API key or an admin session; on-premise an admin reads any library', async () => {
    const app = await buildTestApp()
    await seedLibrary(app, '/acme/router', DOCS)
    const anonymous = await metrics(app, { libraryId: '/acme/router' })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json().error).toBe('invalid_api_key')
    expect((await metrics(app, { libraryId: '/acme/router', days: 'many' })).statusCode).toBe(401)
    const cookie = await signIn(app)
    const admin = await app.inject({ url: '/api/v2/libs/metrics', query: { libraryId: '/acme/router' }, cookies: cookie })
    expect(admin.statusCode, admin.body).toBe(200)
    expect(admin.json()).toEqual({ total: { page: 0, txt: 0, mcp: 0, cli: 0 }, daily: [], mcpClients: { dailyData: [] }, topics: [], countries: [] })
  })
})

describe('library metrics under `serve --workers 2`', () => {
  it('counts an MCP user once whichever process answered, a key and an address alike', async () => {
    const dataDir = await tmpDataDir()
    const setup = await buildTestApp({ dataDir, defer: () => {} })
    await seedLibrary(setup, '/acme/router', DOCS)
    const key = await createKey(setup)
    await setup.close()
    const server = await startServer(dataDir, { LECTERN_RATE_LIMIT_ANONYMOUS: '0', LECTERN_RATE_LIMIT_KEYED: '0' }, undefined, { logLevel: 'info', args: ['--workers', '2'] })
    const lines = collectLog(server)
    const call = (headers: Headers) =>
      send(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'query-docs', arguments: { libraryId: '/acme/router', query: QUESTION } } }),
      })
    // Connections go to the workers in turn, unless one is busy: each caller calls until both answered it.
    const workersOf = async (answers: Answer[]) => [...new Set(await Promise.all(answers.map((a) => workerOf(lines, a))))].sort()
    const untilBothWorkers = async (headers: Headers): Promise<Answer[]> => {
      const answers: Answer[] = []
      while (answers.length < 2 || (await workersOf(answers)).length < 2) {
        expect(answers.length, 'calls before both workers answered').toBeLessThan(20)
        answers.push(await call(headers))
      }
      return answers
    }
    const keyed = await untilBothWorkers(bearer(key))
    const anonymous = await untilBothWorkers({})
    const calls = keyed.length + anonymous.length
    expect([...keyed, ...anonymous].map((a) => a.status)).toEqual(Array(calls).fill(200))
    expect(await workersOf(keyed)).toEqual([1, 2])
    expect(await workersOf(anonymous)).toEqual([1, 2])

    // Each process writes its counts within 5 s.
    const body = await pollUntil(
      'both processes to write their counts',
      async () => {
        const res = await send(`${server.url}/api/v2/libs/metrics?libraryId=/acme/router`, { headers: bearer(key) })
        const json = JSON.parse(res.body) as { total: { mcp: number } }
        return json.total.mcp === calls ? json : undefined
      },
      20_000,
    )
    expect(body).toMatchObject({ mcpClients: { dailyData: [{ date: today(), uniqueUsersByClient: { 'mcp-client': 2 }, totalUniqueUsers: 2 }] } })
  })
})

describe('library metrics of `lectern mcp` (stdio)', () => {
  it('names the client by the name it gave in initialize, and counts the local user', async () => {
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/acme/router', DOCS)
    const key = await createKey(app)
    const client = new Client({ name: 'Claude Code', version: '1.0.0' })
    const dataDir = app.lecternOptions.config.dataDir
    await client.connect(mcpStdio(dataDir))
    try {
      const result = await client.callTool({ name: 'query-docs', arguments: { libraryId: '/acme/router', query: QUESTION } })
      expect(result.isError).toBeFalsy()
    } finally {
      await client.close()
    }
    // The command writes its counts as it exits.
    const body = await pollUntil('the stdio server to write its counts', async () => {
      const json = (await metrics(app, { libraryId: '/acme/router' }, bearer(key))).json()
      return json.total.mcp === 1 ? json : undefined
    })
    expect(body.mcpClients.dailyData).toEqual([{ date: today(), uniqueUsersByClient: { 'claude-code': 1 }, totalUniqueUsers: 1 }])
  })
})

describe('metrics.countryHeader', () => {
  it('takes a header name, lower-cased, and refuses anything else at start-up', async () => {
    const dataDir = await tmpDataDir()
    expect((await runCli(['keys', 'create', '--name', 'x', '--data-dir', dataDir])).exitCode).toBe(0)
    const accepted = await runCli(['config', 'get', '--json', '--data-dir', dataDir], { LECTERN_METRICS_COUNTRY_HEADER: 'CF-IPCountry' })
    expect(accepted.exitCode, accepted.stderr).toBe(0)
    expect((JSON.parse(accepted.stdout) as Array<{ name: string; value: unknown }>).find((r) => r.name === 'metrics.countryHeader')?.value).toBe('cf-ipcountry')
    const refused = await runCli(['config', 'get', '--json', '--data-dir', dataDir], { LECTERN_METRICS_COUNTRY_HEADER: 'country: DE' })
    expect(refused.exitCode).toBe(2)
    expect(JSON.parse(refused.stdout)).toEqual({
      error: 'validation_error',
      message: expect.stringContaining('Invalid setting metrics.countryHeader (from LECTERN_METRICS_COUNTRY_HEADER): expected a header name such as cf-ipcountry'),
    })
  })
})

describe("the README's metrics example", () => {
  it('answers as the README says, run with curl against a listening server', async () => {
    const example = codeBlocks('bash', readmeSection('REST API')).find((block) => block.includes('/v2/libs/metrics'))!
    const [, header, url] = /^curl -H "(Authorization: Bearer \$LECTERN_KEY)" '(http:\/\/127\.0\.0\.1:3000\/[^']+)'\n$/.exec(example)!
    const app = await buildTestApp()
    await seedLibrary(app, '/fastify/fastify', DOCS)
    const key = await createKey(app)
    expect((await context(app, '/fastify/fastify', { headers: bearer(key) })).statusCode).toBe(200)
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const { stdout } = await execa('curl', ['--silent', '--show-error', '--fail', '-H', header.replace('$LECTERN_KEY', key), url.replace('http://127.0.0.1:3000', base)])
    expect(JSON.parse(stdout)).toMatchObject({ total: { txt: 1 }, daily: [{ date: today(), txt: 1, total: 1 }], countries: [{ country: 'unknown', count: 1 }] })
  })
})

describe('library metrics in the cloud', () => {
  async function cloud() {
    const app = await buildTestApp({ mode: 'cloud' })
    const { users, teams, keys } = app.runtime.store
    const db = sqliteOf(app.runtime.store)
    const alice = await users.create({ email: 'alice@example.com', password: 'correct horse battery', role: 'member' })
    const bob = await users.create({ email: 'bob@example.com', password: 'correct horse battery', role: 'member' })
    const acme = await teams.create({ name: 'Acme', ownerUserId: alice.id, plan: 'pro' })
    const globex = await teams.create({ name: 'Globex', ownerUserId: bob.id, plan: 'pro' })
    const { libraryPk } = await seedLibrary(app, '/acme/router', DOCS)
    db.prepare('UPDATE libraries SET is_private = 1, team_pk = ? WHERE pk = ?').run(acme.id, libraryPk)
    await seedLibrary(app, '/public/lib', DOCS)
    const aliceKey = (await keys.create('alice', { userId: alice.id, teamId: acme.id })).key
    const bobKey = (await keys.create('bob', { userId: bob.id, teamId: globex.id })).key
    return { app, alice, bob, acme, globex, aliceKey, bobKey }
  }

  it('lets the owning teamspace read its library: its keys and members signed in', async () => {
    const { app, acme, aliceKey } = await cloud()
    expect((await context(app, '/acme/router', { headers: bearer(aliceKey) })).statusCode).toBe(200)
    const res = await metrics(app, { libraryId: '/acme/router' }, bearer(aliceKey))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().total).toEqual({ page: 0, txt: 1, mcp: 0, cli: 0 })

    const cookies = await signIn(app, 'member', 'carol@example.com')
    const asCarol = () => app.inject({ url: '/api/v2/libs/metrics', query: { libraryId: '/acme/router' }, cookies })
    expect((await asCarol()).statusCode).toBe(404)
    const carol = (await app.runtime.store.users.list()).find((u) => u.email === 'carol@example.com')!
    await app.runtime.store.teams.addMember(acme.id, carol.id, 'developer', membersAllowed)
    const member = await asCarol()
    expect(member.statusCode, member.body).toBe(200)
    expect(member.json().total.txt).toBe(1)

    // The operator (an admin session) reads any library's metrics.
    const operator = await signIn(app)
    for (const libraryId of ['/acme/router', '/public/lib']) {
      const res = await app.inject({ url: '/api/v2/libs/metrics', query: { libraryId }, cookies: operator })
      expect(res.statusCode, res.body).toBe(200)
    }
  })

  it("answers 404 for another teamspace's private library and 403 for a library the caller's teamspace does not own", async () => {
    const { app, aliceKey, bobKey } = await cloud()
    const hidden = await metrics(app, { libraryId: '/acme/router' }, bearer(bobKey))
    expect(hidden.statusCode).toBe(404)
    expect(hidden.json().error).toBe('library_not_found')
    for (const key of [aliceKey, bobKey]) {
      const notOwned = await metrics(app, { libraryId: '/public/lib' }, bearer(key))
      expect(notOwned.statusCode).toBe(403)
      expect(notOwned.json()).toEqual({
        error: 'forbidden',
        message: 'No teamspace owns /public/lib: only the operator reads the metrics of libraries no teamspace owns.',
      })
    }
  })

  it("lets the operator's key (of no teamspace) read any library's metrics", async () => {
    const { app, aliceKey } = await cloud()
    expect((await context(app, '/acme/router', { headers: bearer(aliceKey) })).statusCode).toBe(200)
    const operatorKey = await createKey(app)
    const owned = await metrics(app, { libraryId: '/acme/router' }, bearer(operatorKey))
    expect(owned.statusCode, owned.body).toBe(200)
    expect(owned.json().total.txt).toBe(1)
    const unowned = await metrics(app, { libraryId: '/public/lib' }, bearer(operatorKey))
    expect(unowned.statusCode, unowned.body).toBe(200)
  })

  it("answers 404 user_not_found once the key's user left its teamspace", async () => {
    const { app, alice, acme, aliceKey } = await cloud()
    // A membership removed behind the store's back (teams.removeMember would also revoke the key).
    sqliteOf(app.runtime.store).prepare('DELETE FROM team_members WHERE team_pk = ? AND user_pk = ?').run(acme.id, alice.id)
    const gone = await metrics(app, { libraryId: '/acme/router' }, bearer(aliceKey))
    expect(gone.statusCode).toBe(404)
    expect(gone.json().error).toBe('user_not_found')
  })
})
