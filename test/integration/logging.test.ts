import { once } from 'node:events'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { describe, expect, it, onTestFinished } from 'vitest'
import { addRepo, buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { pollUntil } from '../helpers/poll.js'
import { tmpDir } from '../helpers/tmp.js'
import { sqliteOf } from '../../src/store/index.js'

/** Collects the JSON log lines the app writes. */
function logCollector() {
  const stream = new PassThrough()
  const lines: Array<Record<string, unknown>> = []
  let text = ''
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString()
    for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>)
  })
  return { stream, lines, text: () => text }
}

describe('structured logs', () => {
  it('are JSON with a request ID per request, echoed in x-request-id, and never hold a key or git token', async () => {
    const base = await tmpDir()
    await makeGitRepo({ 'README.md': '# Thing\n\nA thing that does things for the people who need things done.\n' }, { parent: base, name: 'thing' })
    redirectGitHub(base)
    const logs = logCollector()
    const app = await buildTestApp({ logStream: logs.stream, log: { level: 'info' } })
    const key = await createKey(app)
    const token = 'ghp_SECRETSECRETSECRETSECRET0123456789'

    const search = await app.inject({ url: '/api/v2/libs/search?libraryName=x', headers: { authorization: `Bearer ${key}`, 'x-request-id': 'req-abc' } })
    expect(search.headers['x-request-id']).toBe('req-abc')
    const add = await app.inject({
      method: 'POST',
      url: '/api/v2/add/repo/github',
      headers: { authorization: `Bearer ${key}` },
      payload: { docsRepoUrl: 'https://github.com/acme/missing', gitToken: token },
    })
    expect(add.statusCode).toBe(200)
    const failed = await waitForLibrary(app, '/acme/missing')
    expect(failed.state).toBe('error')
    expect(failed.errorMessage).not.toContain(token)
    expect((await addRepo(app, key, 'https://github.com/acme/thing')).statusCode).toBe(200)
    await waitForLibrary(app, '/acme/thing')

    const requestLines = logs.lines.filter((l) => l.reqId === 'req-abc')
    // One line a request at info, naming the request and its outcome.
    expect(requestLines.map((l) => l.msg)).toEqual(['request completed'])
    expect(requestLines[0]).toMatchObject({ level: 30, req: { method: 'GET', url: '/api/v2/libs/search?libraryName=x' }, res: { statusCode: 404 }, responseTime: expect.any(Number) })

    // MCP answers on the raw response (the SDK's transport), with the same ID and lines.
    const mcp = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-request-id': 'req-mcp' },
      payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
    })
    expect(mcp.statusCode).toBe(200)
    expect(mcp.headers['x-request-id']).toBe('req-mcp')
    const mcpLines = logs.lines.filter((l) => l.reqId === 'req-mcp')
    expect(mcpLines.map((l) => l.msg)).toEqual(['request completed'])
    expect(mcpLines[0]).toMatchObject({ req: { method: 'POST', url: '/mcp' }, res: { statusCode: 200 }, responseTime: expect.any(Number) })
    expect(logs.lines.some((l) => l.msg === 'job failed' && typeof l.reason === 'string')).toBe(true)
    expect(logs.text()).not.toContain(key)
    expect(logs.text()).not.toContain(token)
    const stored = sqliteOf(app.runtime.store).prepare('SELECT payload, secret FROM jobs').all()
    expect(JSON.stringify(stored)).not.toContain(token)
  })

  it('logs a request whose client left before the answer at info, as aborted, with its address', async () => {
    const logs = logCollector()
    // At info, as `lectern serve` logs by default: no "incoming request" line has read the caller's address before it leaves.
    const app = await buildTestApp({ logStream: logs.stream, log: { level: 'info' } })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as AddressInfo
    const socket = net.connect(port, '127.0.0.1')
    onTestFinished(() => void socket.destroy())
    await once(socket, 'connect')
    const clientPort = socket.localPort
    const arrived = once(app.server, 'request')
    // Half a body: the server waits for the rest, and the client leaves.
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nx-request-id: req-gone\r\n\r\n{"jsonrpc"')
    await arrived
    socket.destroy()
    const aborted = await pollUntil('the aborted line', () => logs.lines.find((l) => l.reqId === 'req-gone' && l.msg === 'request aborted'))
    expect(aborted).toMatchObject({ level: 30, req: { method: 'POST', url: '/mcp', remoteAddress: '127.0.0.1', remotePort: clientPort }, responseTime: expect.any(Number) })
    expect(logs.lines.filter((l) => l.reqId === 'req-gone').map((l) => l.msg)).toEqual(['request aborted'])
  })

  it('hides the internals of an unexpected error behind the request ID', async () => {
    const logs = logCollector()
    const app = await buildTestApp({ logStream: logs.stream })
    app.runtime.catalogue.search = () => {
      throw new Error('SQLITE_CORRUPT: database disk image is malformed at /secret/path')
    }
    const res = await app.inject({ url: '/api/v2/libs/search?libraryName=x' })
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({ error: 'internal_error', message: expect.stringContaining(res.headers['x-request-id'] as string) })
    expect(res.body).not.toContain('SQLITE')
    expect(logs.text()).toContain('SQLITE_CORRUPT')
  })
})
