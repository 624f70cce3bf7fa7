/**
 * The sources' HTTP client through a real forward proxy on loopback (test/helpers/forward-proxy.ts):
 * http:// URLs as absolute-URI requests to HTTP_PROXY, NO_PROXY bypassing it, proxy credentials
 * sent to the proxy and never shown, and the cloud-mode guard refusing private targets before
 * the proxy is asked. https:// through CONNECT is tested with the CLI (web-proxy.test.ts), where
 * NODE_EXTRA_CA_CERTS can trust a test CA.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { readProxySettings } from '../../src/net/proxy.js'
import { HttpClient, USER_AGENT, createHttpClient } from '../../src/sources/http.js'
import { startForwardProxy } from '../helpers/forward-proxy.js'
import { setProcessEnv } from '../helpers/tmp.js'

async function serve(handler: http.RequestListener): Promise<{ url: string; port: number }> {
  const server = http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, port }
}

/** A site that says who asked, and through which proxy (the `Via` header the proxy adds). */
const echoSite = () => serve((req, res) => res.end(JSON.stringify({ path: req.url, via: req.headers.via ?? null, agent: req.headers['user-agent'] })))

describe('HttpClient through HTTP_PROXY', () => {
  it('sends http:// requests to the proxy as absolute URIs, keeping its User-Agent, redirects and retries', async () => {
    let calls = 0
    const site = await serve((req, res) => {
      if (req.url === '/old') return void res.writeHead(301, { location: '/flaky' }).end()
      if (req.url === '/flaky' && ++calls < 2) return void res.writeHead(503, { 'retry-after': '0' }).end()
      res.end(JSON.stringify({ via: req.headers.via ?? null, agent: req.headers['user-agent'] }))
    })
    const proxy = await startForwardProxy()
    const client = new HttpClient({ retryBaseMs: 1, proxy: readProxySettings({ HTTP_PROXY: proxy.url }) })
    const response = await client.get(`${site.url}/old`)
    expect(response.url).toBe(`${site.url}/flaky`)
    expect(response.json()).toMatchObject({ via: expect.stringContaining('proxy/'), agent: USER_AGENT })
    expect(proxy.seen).toEqual([`GET ${site.url}/old`, `GET ${site.url}/flaky`, `GET ${site.url}/flaky`])
    expect(proxy.userAgents).toEqual([USER_AGENT, USER_AGENT, USER_AGENT])
  })

  it('goes direct for hosts NO_PROXY names, and for https:// when only HTTP_PROXY is set', async () => {
    const site = await echoSite()
    const proxy = await startForwardProxy()
    const bypassing = new HttpClient({ proxy: readProxySettings({ HTTP_PROXY: proxy.url, NO_PROXY: `localhost,127.0.0.1:${site.port}` }) })
    expect((await bypassing.get(`${site.url}/a`)).json()).toMatchObject({ via: null })
    expect(proxy.seen).toEqual([])
    const otherPort = new HttpClient({ proxy: readProxySettings({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1:1' }) })
    expect((await otherPort.get(`${site.url}/b`)).json()).toMatchObject({ via: expect.stringContaining('proxy/') })
    expect(proxy.seen).toEqual([`GET ${site.url}/b`])
  })

  it('reads HTTP_PROXY from the environment by default', async () => {
    const site = await echoSite()
    const proxy = await startForwardProxy()
    setProcessEnv({ http_proxy: '', HTTP_PROXY: proxy.url, no_proxy: '', NO_PROXY: '' })
    await new HttpClient().get(`${site.url}/env`)
    expect(proxy.seen).toEqual([`GET ${site.url}/env`])
  })

  it('authenticates to the proxy with the URL\'s credentials, and a refusal never shows them', async () => {
    const site = await echoSite()
    const proxy = await startForwardProxy({ credentials: { username: 'lectern', password: 's3cr3t-proxy-pw' } })
    const withAuth = (password: string) => new HttpClient({ retries: 0, proxy: readProxySettings({ HTTP_PROXY: proxy.url.replace('//', `//lectern:${password}@`) }) })
    expect((await withAuth('s3cr3t-proxy-pw').get(`${site.url}/in`)).json()).toMatchObject({ path: '/in' })
    const refused = await withAuth('wrong-pw-123').get(`${site.url}/out`).catch((err: Error) => err)
    expect(refused).toMatchObject({ code: 'source_unreachable' })
    expect((refused as Error).message).toContain(`through the proxy http://***@127.0.0.1:${proxy.port}`)
    expect((refused as Error).message).not.toContain('wrong-pw-123')
    expect(proxy.refused).toBe(1)
  })

  it('reports a proxy that cannot be reached as the source being unreachable through it', async () => {
    const site = await echoSite()
    const client = new HttpClient({ retries: 0, proxy: readProxySettings({ HTTP_PROXY: 'http://127.0.0.1:1' }) })
    await expect(client.get(site.url)).rejects.toMatchObject({ code: 'source_unreachable', message: expect.stringMatching(/: \S.* \(through the proxy http:\/\/127\.0\.0\.1:1\)$/) })
  })
})

describe('cloud-mode guard with a proxy', () => {
  it('refuses a private target before asking the proxy: by IP, by name, and through a redirect', async () => {
    const site = await serve((req, res) => (req.url === '/hop' ? res.writeHead(302, { location: `http://localhost:${req.socket.localPort}/` }).end() : res.end('private')))
    const proxy = await startForwardProxy()
    const settings = readProxySettings({ HTTP_PROXY: proxy.url })
    const cloud = createHttpClient('cloud', [], { proxy: settings })
    await expect(cloud.get(site.url)).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining('127.0.0.1 is a private address') })
    await expect(cloud.get(site.url.replace('127.0.0.1', 'localhost'))).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining('localhost resolves to') })
    expect(proxy.seen).toEqual([])
    // The first hop is allowed by name and passes the proxy; the redirect's host is not allowed.
    const hopUrl = `${site.url.replace('127.0.0.1', 'localhost')}/hop`
    await expect(createHttpClient('cloud', ['127.0.0.1'], { proxy: settings }).get(`${site.url}/hop`)).rejects.toMatchObject({ code: 'forbidden' })
    expect(proxy.seen).toEqual([`GET ${site.url}/hop`])
    // Allowed hosts pass, and the proxy itself, on loopback, is never refused.
    expect((await createHttpClient('cloud', ['localhost'], { proxy: settings }).get(hopUrl)).text()).toBe('private')
    expect(proxy.seen.slice(1)).toEqual([`GET ${hopUrl}`, `GET ${site.url.replace('127.0.0.1', 'localhost')}/`])
  })

  it('refuses a host it cannot resolve itself, since it could not check it', async () => {
    const proxy = await startForwardProxy()
    const cloud = createHttpClient('cloud', [], { proxy: readProxySettings({ HTTPS_PROXY: proxy.url }) })
    await expect(cloud.get('https://no-such-host.invalid/')).rejects.toMatchObject({ code: 'source_unreachable', message: expect.stringContaining('no-such-host.invalid cannot be resolved here') })
    expect(proxy.seen).toEqual([])
  })
})
