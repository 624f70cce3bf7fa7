import http from 'node:http'
import type { AddressInfo } from 'node:net'
import zlib from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { isAllowedAddress } from '../../src/sources/address-guard.js'
import { HttpClient, USER_AGENT, createHttpClient } from '../../src/sources/http.js'

let servers: http.Server[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))))
  servers = []
})

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('HttpClient', () => {
  it('sends its User-Agent, follows redirects and decompresses', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/old') return void res.writeHead(301, { location: '/new' }).end()
      expect(req.headers['user-agent']).toBe(USER_AGENT)
      res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync('hello'))
    })
    const response = await new HttpClient().get(`${base}/old`)
    expect(response.text()).toBe('hello')
    expect(response.url).toBe(`${base}/new`)
  })

  it('stops a redirect loop after the limit', async () => {
    const base = await serve((req, res) => res.writeHead(302, { location: req.url === '/a' ? '/b' : '/a' }).end())
    await expect(new HttpClient({ maxRedirects: 3 }).get(`${base}/a`)).rejects.toMatchObject({ code: 'source_unreachable', message: expect.stringContaining('more than 3 redirects') })
  })

  it('refuses a body over the cap, declared or streamed', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/declared') return void res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000))
      res.writeHead(200)
      for (let i = 0; i < 10; i++) res.write('y'.repeat(1000))
      res.end()
    })
    const client = new HttpClient({ maxBytes: 2000 })
    await expect(client.get(`${base}/declared`)).rejects.toThrow(/over the 2000-byte limit/)
    await expect(client.get(`${base}/streamed`)).rejects.toThrow(/over the 2000-byte limit/)
  })

  it('retries 503 and honours Retry-After, then gives up with the status', async () => {
    let calls = 0
    const base = await serve((req, res) => {
      calls++
      if (req.url === '/flaky' && calls < 3) return void res.writeHead(503, { 'retry-after': '0' }).end()
      if (req.url === '/down') return void res.writeHead(500).end()
      res.end('ok')
    })
    const client = new HttpClient({ retries: 2, retryBaseMs: 1 })
    expect((await client.get(`${base}/flaky`)).text()).toBe('ok')
    expect(calls).toBe(3)
    await expect(client.get(`${base}/down`)).rejects.toThrow(/answered 500/)
  })

  it('times out a silent server and reports an unreachable host', async () => {
    const base = await serve(() => {})
    await expect(new HttpClient({ timeoutMs: 200, retries: 0 }).get(base)).rejects.toThrow(/no answer within 200 ms/)
    await expect(new HttpClient({ retries: 0 }).get('http://127.0.0.1:1/')).rejects.toMatchObject({ code: 'source_unreachable' })
  })

  it('refuses non-http schemes and URLs with credentials', async () => {
    await expect(new HttpClient().get('file:///etc/passwd')).rejects.toMatchObject({ code: 'validation_error' })
    await expect(new HttpClient().get('http://user:pw@example.com/')).rejects.toMatchObject({ code: 'validation_error' })
  })
})

describe('cloud-mode address guard', () => {
  it('classifies addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fc00::1', '0.0.0.0', '::ffff:127.0.0.1']) {
      expect(isAllowedAddress(ip, 'h', []), ip).toBe(false)
    }
    expect(isAllowedAddress('93.184.216.34', 'h', [])).toBe(true)
    expect(isAllowedAddress('10.1.2.3', 'h', ['10.0.0.0/8'])).toBe(true)
    expect(isAllowedAddress('127.0.0.1', 'docs.internal', ['docs.internal'])).toBe(true)
  })

  it('refuses loopback by IP, by name and through a redirect, unless allowed', async () => {
    const base = await serve((req, res) => (req.url === '/hop' ? res.writeHead(302, { location: base.replace('127.0.0.1', 'localhost') }).end() : res.end('private')))
    const cloud = createHttpClient('cloud', [])
    await expect(cloud.get(base)).rejects.toMatchObject({ code: 'forbidden' })
    await expect(cloud.get(base.replace('127.0.0.1', 'localhost'))).rejects.toMatchObject({ code: 'forbidden' })
    // The first hop's host is allowed by name; the redirect's host is not, though it is the same machine.
    await expect(createHttpClient('cloud', ['127.0.0.1']).get(`${base}/hop`)).rejects.toMatchObject({ code: 'forbidden' })
    expect((await createHttpClient('cloud', ['127.0.0.1', 'localhost']).get(`${base}/hop`)).text()).toBe('private')
    expect((await createHttpClient('cloud', ['127.0.0.0/8', '::1/128']).get(`${base}/hop`)).text()).toBe('private')
    expect((await createHttpClient('onprem', []).get(base)).text()).toBe('private')
  })
})
