/**
 * The smoke and API suite a release must pass on its own runtime, run by the release's bundled
 * node (the test hides every other one) inside a network namespace with loopback only: the
 * unpacked release serves, ingests an llms.txt from a loopback docs server, answers over REST and
 * MCP, refuses bad requests with the spec's codes, and stops cleanly.
 *
 * Plain JavaScript with no imports beyond Node's own: nothing of the checkout is there to import.
 * Usage: node smoke.mjs <release dir>. Prints one JSON line a check; exits 1 at the first failure.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readlinkSync } from 'node:fs'
import { createServer } from 'node:http'
import { networkInterfaces, tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const release = path.resolve(process.argv[2] ?? '.')
const lectern = path.join(release, 'bin', 'lectern')
const home = mkdtempSync(path.join(tmpdir(), 'lectern-smoke-'))
const dataDir = path.join(home, 'data')
const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: home, NO_COLOR: '1', LECTERN_DATA_DIR: dataDir, LECTERN_LOG_FORMAT: 'json' }

function check(name, condition, detail) {
  if (!condition) {
    process.stdout.write(`${JSON.stringify({ check: name, ok: false, detail })}\n`)
    process.exit(1)
  }
  process.stdout.write(`${JSON.stringify({ check: name, ok: true })}\n`)
}

async function until(what, probe, timeoutMs = 90_000) {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > end) check(what, false, 'timed out')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const run = (args) => promisify(execFile)(lectern, args, { env })

// A docs site on loopback: the llms.txt names one page with a code example.
const page = [
  '# Routing',
  '',
  'Widgets routes map a path to a handler. Register one with `router.add` before the server starts listening.',
  '',
  '```js',
  "router.add('/widgets/:id', (request) => loadWidget(request.params.id))",
  '```',
  '',
].join('\n')
const docs = createServer((req, res) => {
  if (req.url === '/llms.txt') {
    res.setHeader('content-type', 'text/plain')
    res.end(`# Widgets\n\n> The widgets router.\n\n## Docs\n\n- [Routing](http://127.0.0.1:${docs.address().port}/routing.md): routes and handlers\n`)
  } else if (req.url === '/routing.md') {
    res.setHeader('content-type', 'text/markdown')
    res.end(page)
  } else {
    res.statusCode = 404
    res.end()
  }
})
await new Promise((resolve) => docs.listen(0, '127.0.0.1', resolve))

if (process.env.SMOKE_OFFLINE === '1') check('no network but loopback', Object.keys(networkInterfaces()).join() === 'lo', networkInterfaces())

const version = await run(['--version'])
check('--version runs on the bundled runtime', /lectern\/\d+\.\d+\.\d+ linux-x64 node-v26\./.test(version.stdout), version.stdout)

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address()
    probe.close(() => resolve(port))
  })
})
const base = `http://127.0.0.1:${port}`
const server = spawn(lectern, ['serve', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] })
let serverLog = ''
server.stdout.on('data', (chunk) => (serverLog += chunk))
server.stderr.on('data', (chunk) => (serverLog += chunk))
const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })))
server.on('exit', (code) => {
  if (code !== 0 && !stopping) check('the server keeps running', false, serverLog.slice(-4000))
})
let stopping = false

await until('the server to be ready', async () => ((await fetch(`${base}/api/ready`).catch(() => undefined))?.status === 200 ? true : undefined))
check('serves /api/ready', true)
check('the server process is the bundled node', readlinkSync(`/proc/${server.pid}/exe`) === path.join(release, 'node', 'bin', 'node'), readlinkSync(`/proc/${server.pid}/exe`))

const ping = await (await fetch(`${base}/ping`)).json()
check('GET /ping', ping.status === 'ok' && ping.message === 'pong', ping)

const created = JSON.parse((await run(['keys', 'create', '--name', 'smoke', '--json'])).stdout)
check('lectern keys create prints a key', typeof created.key === 'string' && created.key.startsWith('lct_'), created)
const auth = { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' }

const unkeyed = await fetch(`${base}/api/v2/add/llmstxt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ llmstxtUrl: `http://127.0.0.1:${docs.address().port}/llms.txt` }) })
check('adding without a key is 401 invalid_api_key', unkeyed.status === 401 && (await unkeyed.json()).error === 'invalid_api_key')
const wrongKey = await fetch(`${base}/api/v2/context?libraryId=/llmstxt/x&query=routes`, { headers: { authorization: 'Bearer lct_00000000000000000000000000000000' } })
check('a wrong key is 401 invalid_api_key', wrongKey.status === 401 && (await wrongKey.json()).error === 'invalid_api_key')

const added = await fetch(`${base}/api/v2/add/llmstxt`, { method: 'POST', headers: auth, body: JSON.stringify({ llmstxtUrl: `http://127.0.0.1:${docs.address().port}/llms.txt` }) })
const addBody = await added.json()
check('POST /api/v2/add/llmstxt queues a library', added.status === 200 && typeof addBody.libraryName === 'string', addBody)
const libraryId = addBody.libraryName

const context = (query, type = 'txt') => fetch(`${base}/api/v2/context?${new URLSearchParams({ libraryId, query, type })}`, { headers: auth })
const answer = await until('the library to be indexed', async () => {
  const response = await context('register a route handler')
  if (response.status === 202) return undefined
  return { status: response.status, text: await response.text() }
})
check('GET /api/v2/context answers with the page\'s code', answer.status === 200 && answer.text.includes("router.add('/widgets/:id'"), answer)

const json = await (await context('register a route handler', 'json')).json()
check('type=json is a ContextResponse', Array.isArray(json.codeSnippets) && json.codeSnippets[0]?.codeList?.[0]?.code.includes('router.add') && Array.isArray(json.infoSnippets), json)

const search = await (await fetch(`${base}/api/v2/libs/search?${new URLSearchParams({ libraryName: 'widgets', query: 'routing' })}`)).json()
check('GET /api/v2/libs/search finds it', search.results?.[0]?.id === libraryId, search)

const unknown = await fetch(`${base}/api/v2/context?libraryId=/nobody/nothing&query=routes`)
check('an unknown library is 404 library_not_found', unknown.status === 404 && (await unknown.json()).error === 'library_not_found')
const wordless = await context('???')
check('a question without a word is 400 validation_error', wordless.status === 400 && (await wordless.json()).error === 'validation_error')

const mcp = async (id, method, params) => {
  const response = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...auth, accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  })
  const text = await response.text()
  const data = text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data: '))?.slice(6)
  return JSON.parse(data ?? '{}')
}
const initialized = await mcp(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'smoke', version: '1' } })
check('MCP initialize', initialized.result?.serverInfo !== undefined, initialized)
const tools = await mcp(2, 'tools/list', {})
check('MCP lists resolve-library-id and query-docs', ['resolve-library-id', 'query-docs'].every((name) => tools.result?.tools?.some((tool) => tool.name === name)), tools)
const queried = await mcp(3, 'tools/call', { name: 'query-docs', arguments: { libraryId, query: 'register a route handler' } })
check('MCP query-docs answers with the code', queried.result?.content?.[0]?.text?.includes("router.add('/widgets/:id'"), queried)

const jobs = JSON.parse((await run(['jobs', '--json'])).stdout)
check('lectern jobs reads the same data directory', jobs !== null && typeof jobs === 'object', jobs)

stopping = true
server.kill('SIGTERM')
const ended = await exited
check('SIGTERM stops the server cleanly', ended.code === 0, { ...ended, log: serverLog.slice(-2000) })
docs.close()
process.stdout.write(`${JSON.stringify({ done: true })}\n`)
