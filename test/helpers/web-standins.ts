/**
 * STAND-INS for the public web hosts the docs name (docs.example.com, app-docs.example.com,
 * petstore3.swagger.io), which cannot be reached here: one HTTPS server with a certificate of
 * the test CA for all of them, and the same content over plain HTTP, answering by Host header.
 * A forward proxy's `hosts` map (forward-proxy.ts) sends the names here. Content: an llms.txt
 * with a linked Markdown page, a small website under /guide/, a page that builds itself with
 * JavaScript (for --render), and an OpenAPI spec. Any other host (127.0.0.1) gets docs.example.com's.
 */
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { parse as parseYaml } from 'yaml'
import { onTestFinished } from 'vitest'
import { PETSHOP_YAML } from './openapi-fixtures.js'
import type { Defer } from './tmp.js'
import type { TestCa } from './tls.js'

export const WEB_HOSTS = ['docs.example.com', 'app-docs.example.com', 'petstore3.swagger.io'] as const

const page = (title: string, main: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><nav><a href="/guide/">Guide</a></nav><main>${main}</main></body></html>`

const RENDERED_PAGE = `<!doctype html><html><head><title>Gauges</title></head><body>
<main id="app"></main>
<script>
  document.getElementById('app').innerHTML = '<h1>Gauges</h1><h2>Draw a gauge</h2>' +
    '<p>Draw a rendered gauge on any canvas element with drawGauge and a value between zero and one hundred.</p>' +
    '<pre><code class="language-js">drawGauge(canvas, { value: 42 })</code></pre>'
</script></body></html>`

const CONTENT: Record<string, Record<string, { type: string; body: string }>> = {
  'docs.example.com': {
    '/llms.txt': { type: 'text/plain', body: '# Acme Widgets\n\n> Gauges and charts for the browser.\n\n## Docs\n\n- [Install](https://docs.example.com/install.md): installing the package\n' },
    '/install.md': { type: 'text/markdown', body: '# Install\n\nInstall the widgets package from npm before creating your first gauge:\n\n```sh\nnpm install @acme/widgets\n```\n' },
    '/guide/': { type: 'text/html', body: page('Guide', '<h1>Guide</h1><p>Start with the <a href="/guide/intro.html">introduction</a> to the widgets.</p>') },
    '/guide/intro.html': { type: 'text/html', body: page('Introduction', '<h1>Introduction</h1><h2>Create a gauge</h2><p>Call createGauge with a canvas element and the gauge options to draw a speedometer gauge.</p><pre><code class="language-js">const gauge = createGauge(canvas, { min: 0, max: 240 })</code></pre>') },
  },
  'app-docs.example.com': { '/': { type: 'text/html', body: RENDERED_PAGE } },
  'petstore3.swagger.io': { '/api/v3/openapi.json': { type: 'application/json', body: JSON.stringify(parseYaml(PETSHOP_YAML)) } },
}

export interface WebStandIns {
  httpsPort: number
  httpPort: number
  /** Every request: `https://docs.example.com/llms.txt` and the User-Agent that asked. */
  requests: Array<{ url: string; userAgent: string }>
  /** The forward proxy's `hosts` map: each name's ports to these servers. */
  proxyHosts: Record<string, number>
}

export async function startWebStandIns(ca: TestCa, defer: Defer = onTestFinished): Promise<WebStandIns> {
  const requests: WebStandIns['requests'] = []
  const handler = (scheme: string) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '')
    requests.push({ url: `${scheme}://${host}${req.url}`, userAgent: String(req.headers['user-agent']) })
    const found = (CONTENT[host] ?? CONTENT['docs.example.com'])[new URL(req.url ?? '/', 'http://x').pathname]
    if (!found) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
    res.writeHead(200, { 'content-type': `${found.type}; charset=utf-8` }).end(found.body)
  }
  const secure = https.createServer(await ca.issue([...WEB_HOSTS]), handler('https'))
  const plain = http.createServer(handler('http'))
  for (const server of [secure, plain]) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    defer(() => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    })
  }
  const httpsPort = (secure.address() as AddressInfo).port
  const httpPort = (plain.address() as AddressInfo).port
  const proxyHosts = Object.fromEntries(WEB_HOSTS.flatMap((host) => [[`${host}:443`, httpsPort], [`${host}:80`, httpPort]]))
  return { httpsPort, httpPort, requests, proxyHosts }
}
