/**
 * DNS rebinding (issue 29, item 5): a page on a name made to resolve to the server's address
 * sends its requests with that name in Host and Origin. On-premise on a loopback or private
 * address such a Host is refused, and everywhere an Origin of another site is, on the REST API and
 * /mcp alike; the install's own names, the operator's server.allowedHosts and stock MCP clients
 * (no Origin) pass. Requests go over real HTTP to a listening server, Host set by hand as a
 * rebinding browser would send it.
 */
import http from 'node:http'
import os from 'node:os'
import { describe, expect, it } from 'vitest'
import type { TestAppOptions } from '../helpers/app.js'
import { buildTestApp } from '../helpers/app.js'

interface Answer {
  status: number
  body: string
}

/** A request to the listening app at 127.0.0.1, naming `host` in Host. */
function request(port: number, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function listening(options: TestAppOptions = {}): Promise<number> {
  const app = await buildTestApp(options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  return (app.server.address() as { port: number }).port
}

/** No library is installed: an allowed request gets 404 library_not_found, a refused one 403. */
const CONTEXT = '/api/v2/context?libraryId=/acme/widgets&query=install'
const MCP_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const REFUSED_NAME = (name: string) =>
  `This server does not answer to the name "${name}"; if it is one of its names, add it to server.allowedHosts (LECTERN_ALLOWED_HOSTS) on the server.`

describe('on-premise, listening on loopback', () => {
  it('refuses a Host that is not one of its names, on the REST API and /mcp', async () => {
    const port = await listening()
    const api = await request(port, CONTEXT, { host: `rebind.evil.example:${port}` })
    expect(api.status).toBe(403)
    expect(JSON.parse(api.body)).toEqual({ error: 'forbidden', message: REFUSED_NAME('rebind.evil.example') })
    const mcp = await request(port, '/mcp', { ...MCP_HEADERS, host: `rebind.evil.example:${port}` }, MCP_LIST)
    expect(mcp.status).toBe(403)
    expect(JSON.parse(mcp.body)).toMatchObject({ jsonrpc: '2.0', error: { message: REFUSED_NAME('rebind.evil.example') } })
  })

  it('answers to IP addresses, localhost, the machine name and the names of server.allowedHosts', async () => {
    const port = await listening({ server: { allowedHosts: ['docs.example.com', '*.corp.example'] } })
    for (const host of ['127.0.0.1', '[::1]', 'localhost', 'app.localhost', os.hostname(), 'docs.example.com', 'wiki.corp.example', '10.1.2.3']) {
      const answer = await request(port, CONTEXT, { host: `${host}:${port}` })
      expect(answer.status, `${host}: ${answer.body}`).toBe(404)
    }
    for (const host of ['corp.example', 'docs.example.com.evil.example', 'evilcorp.example']) {
      expect((await request(port, CONTEXT, { host: `${host}:${port}` })).status, host).toBe(403)
    }
  })

  it("refuses a page of another site by its Origin, and lets the server's own pages and the listed sites through", async () => {
    const port = await listening({ server: { allowedHosts: ['tools.example.com'] } })
    const own = `http://127.0.0.1:${port}`
    const from = (origin: string) => request(port, CONTEXT, { host: `127.0.0.1:${port}`, origin })
    const other = await from('http://evil.example')
    expect(other.status).toBe(403)
    expect(JSON.parse(other.body)).toEqual({
      error: 'forbidden',
      message: 'Refused: this request came from a page of another site (http://evil.example); if that site may call this server, add its host to server.allowedHosts (LECTERN_ALLOWED_HOSTS) on the server.',
    })
    expect((await from('null')).status).toBe(403)
    expect((await from(`https://127.0.0.1:${port}`)).status).toBe(403)
    expect((await from(own)).status).toBe(404)
    expect((await from('https://tools.example.com')).status).toBe(404)
    const mcp = await request(port, '/mcp', { ...MCP_HEADERS, host: `127.0.0.1:${port}`, origin: 'http://evil.example' }, MCP_LIST)
    expect(mcp.status).toBe(403)
    // A stock MCP client sends no Origin.
    const stock = await request(port, '/mcp', { ...MCP_HEADERS, host: `127.0.0.1:${port}` }, MCP_LIST)
    expect(stock.status, stock.body).toBe(200)
  })
})

describe('behind a trusted proxy', () => {
  it('checks the Host a browser sent and the forwarded host: neither stands in for the other', async () => {
    const port = await listening({ server: { trustProxy: true } })
    // A rebinding page cannot change Host, but may send X-Forwarded-Host on its own same-origin fetch.
    const forged = await request(port, CONTEXT, { host: `rebind.evil.example:${port}`, 'x-forwarded-host': 'localhost' })
    expect(forged.status).toBe(403)
    expect(JSON.parse(forged.body).message).toBe(REFUSED_NAME('rebind.evil.example'))
    expect((await request(port, CONTEXT, { host: `127.0.0.1:${port}`, 'x-forwarded-host': 'rebind.evil.example' })).status).toBe(403)
    expect((await request(port, CONTEXT, { host: `127.0.0.1:${port}`, 'x-forwarded-host': 'localhost' })).status).toBe(404)
    // A request without a Host, but with an Origin, is refused, not an internal error.
    expect((await request(port, CONTEXT, { host: '', origin: 'http://evil.example' })).status).toBe(403)
  })
})

describe('where the Host is not checked', () => {
  it('a server on a public address, and the cloud edition, answer any name; both still check Origin', async () => {
    for (const options of [{ server: { host: '203.0.113.7' } }, { mode: 'cloud' as const }]) {
      const port = await listening(options)
      expect((await request(port, CONTEXT, { host: 'docs.example.org' })).status).toBe(404)
      expect((await request(port, CONTEXT, { host: 'docs.example.org', origin: 'http://evil.example' })).status).toBe(403)
    }
  })
})
