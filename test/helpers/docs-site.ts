/**
 * A real static documentation site on 127.0.0.1 (node:http, port 0), shaped like the sites the
 * web readers meet: navigation chrome on every page, highlighted code, robots.txt, a sitemap,
 * a canonical duplicate, a crawl trap, an oversized page, a redirect loop, and llms.txt files
 * linking Markdown pages.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Defer } from './tmp.js'

export const FOOTER_MARK = 'Copyright 2026 Acme Corp, all rights reserved'
export const NAV_MARK = 'Acme Docs Home'
export const SECRET_MARK = 'private-staff-only-rotation-schedule'
export const BIG_PAGE_BYTES = 3 * 1024 * 1024

export interface DocsSite {
  url: string
  /** Paths requested so far, in order (query strings included). */
  requests: string[]
  /** The ETag the start page carries; changing it makes the site "changed". */
  etag: string
}

function layout(title: string, main: string, head = ''): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${title} | Acme Widgets</title>${head}</head>
<body>
<header><nav><a href="/">${NAV_MARK}</a> <a href="/guide/">Guide</a> <a href="/api/widgets.html">API</a> <a href="/private/staff.html">Staff</a></nav></header>
<aside class="sidebar"><ul>
<li><a href="/guide/install.html?ref=sidebar">Install</a></li>
<li><a href="/guide/configure.html#themes">Configure</a></li>
<li><a href="/calendar/1">Release calendar</a></li>
<li><a href="/logo.png">Logo</a></li>
<li><a href="/download">Download</a></li>
<li><a href="/big.html">Full reference</a></li>
<li><a href="https://elsewhere.invalid/">Elsewhere</a></li>
</ul></aside>
<main><article>${main}</article></main>
<footer><p>${FOOTER_MARK}. Built with a static site generator.</p></footer>
</body></html>`
}

const PAGES: Record<string, string> = {
  '/': layout('Acme Widgets', `<h1>Acme Widgets</h1>
<p>Acme Widgets draws gauges, meters and charts in the browser. Start with the <a href="/guide/">guide</a>.</p>
<p>Every widget is a plain object rendered onto a canvas element, so it works with any framework.</p>`,
  '<meta name="description" content="Gauges and charts for the browser.">'),
  '/guide/': guidePage(),
  '/guide/index.html': guidePage(),
  '/guide/install.html': layout('Install', `<h1>Install</h1>
<p>Install the widgets package from npm before creating your first gauge.</p>
<h2>Create a gauge</h2>
<p>Call createGauge with a canvas element and the gauge options to draw a speedometer gauge.</p>
<pre><code class="language-js">import { createGauge } from '@acme/widgets'
const gauge = createGauge(document.querySelector('#speed'), { min: 0, max: 240 })</code></pre>`),
  '/guide/configure.html': layout('Configure', `<h1>Configure</h1>
<p>Widgets read their configuration from a plain object.</p>
<h2 id="themes">Themes</h2>
<p>Switch the colour theme of every widget on the server side with the Python helper.</p>
<div class="highlight highlight-source-python"><pre>from acme_widgets import set_theme
set_theme("midnight", contrast="high")</pre></div>`),
  '/api/widgets.html': layout('Widgets API', `<h1>Widgets API</h1>
<h2>Resize a widget</h2>
<p>Resize a rendered widget to new pixel dimensions without redrawing its data.</p>
<pre data-language="typescript"><code>widget.resize({ width: 640, height: 480 })</code></pre>`),
  '/troubleshooting.html': layout('Troubleshooting', `<h1>Troubleshooting</h1>
<h2>Blurry gauges on retina screens</h2>
<p>A blurry gauge on a high density display needs devicePixelRatio scaling; pass the pixelRatio option.</p>
<pre><code class="lang-js">createGauge(canvas, { pixelRatio: window.devicePixelRatio })</code></pre>`),
  '/private/staff.html': layout('Staff', `<h1>Staff</h1><p>The ${SECRET_MARK} lives here.</p>`),
}

function guidePage(): string {
  return layout('Guide', `<h1>Guide</h1>
<p>This guide walks through installing, configuring and resizing widgets.</p>
<ul><li><a href="/guide/install.html">Install</a></li><li><a href="/guide/configure.html">Configure</a></li></ul>
<h2>Quick start</h2>
<p>Mount every widget of a dashboard at once with mountAll and a container selector.</p>
<pre><code class="language-js">mountAll('#dashboard')</code></pre>`,
  '<link rel="canonical" href="/guide/">')
}

const LLMS_TXT = `# Acme Widgets

> Acme Widgets draws gauges and charts in the browser.

Widgets are plain objects drawn onto a canvas.

## Docs

- [Install](/docs/install.md): install the package and draw a first gauge
- [Gauges](/docs/gauges.md): needles, ranges and colour bands
- [Themes](/guide/configure.html): the HTML page about themes
- [Elsewhere](https://elsewhere.invalid/x.md): another site, never fetched

## Optional

- [Changelog](/docs/changelog.md): release notes
`

const MARKDOWN: Record<string, string> = {
  '/docs/install.md': `# Install\n\nInstall the package from npm.\n\n## Draw a first gauge\n\nDraw a first gauge with createGauge and a canvas.\n\n\`\`\`js\ncreateGauge(canvas, { min: 0, max: 100 })\n\`\`\`\n`,
  '/docs/gauges.md': `# Gauges\n\n## Colour bands\n\nAdd colour bands to a gauge so the needle shows red above the warning threshold.\n\n\`\`\`js\ngauge.addBand({ from: 80, to: 100, color: 'red' })\n\`\`\`\n`,
  '/docs/changelog.md': `# Changelog\n\n## 2.0.0\n\nThe sparkline widget was removed; migrate sparklines to a compact line chart.\n\n\`\`\`js\nlineChart(canvas, data, { compact: true })\n\`\`\`\n`,
}

const LLMS_FULL = `# Acme Widgets

## Needle animation

Animate the gauge needle smoothly when the value changes by setting the easing duration.

\`\`\`js
gauge.animate({ duration: 400, easing: 'ease-out' })
\`\`\`

## Legends

Show a legend below a chart with the legend option.
`

function route(req: IncomingMessage, res: ServerResponse, site: DocsSite): void {
  const { pathname } = new URL(req.url ?? '/', site.url)
  const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, ...headers })
    res.end(body)
  }
  if (pathname === '/robots.txt') return send(200, 'text/plain', `User-agent: *\nDisallow: /private/\n\nSitemap: ${site.url}/sitemap.xml\n`)
  if (pathname === '/sitemap.xml') {
    const locs = ['/', '/guide/', '/guide/install.html', '/troubleshooting.html', '/private/staff.html', '/api/widgets.html']
    return send(200, 'application/xml', `<?xml version="1.0"?><urlset>${locs.map((l) => `<url><loc>${site.url}${l}</loc></url>`).join('')}</urlset>`)
  }
  if (pathname === '/') {
    if (req.headers['if-none-match'] === site.etag) return send(304, 'text/html', '')
    return send(200, 'text/html; charset=utf-8', PAGES['/'], { etag: site.etag })
  }
  const calendar = /^\/calendar\/(\d+)$/.exec(pathname)
  if (calendar) {
    const n = Number(calendar[1])
    return send(200, 'text/html', layout(`Calendar ${n}`, `<h1>Releases in month ${n}</h1><p>No releases this month.</p><a href="/calendar/${n + 1}">Next month</a>`))
  }
  if (pathname === '/big.html') return send(200, 'text/html', Buffer.alloc(BIG_PAGE_BYTES, 'a'))
  if (pathname === '/download') return send(200, 'application/octet-stream', Buffer.from('binary'))
  if (pathname === '/loop/') return send(302, 'text/plain', '', { location: '/loop/' })
  if (pathname === '/llms.txt') return send(200, 'text/plain; charset=utf-8', LLMS_TXT)
  if (pathname === '/llms-full.txt') return send(200, 'text/plain; charset=utf-8', LLMS_FULL)
  if (MARKDOWN[pathname]) return send(200, 'text/markdown; charset=utf-8', MARKDOWN[pathname])
  if (PAGES[pathname]) return send(200, 'text/html; charset=utf-8', PAGES[pathname])
  send(404, 'text/html', '<h1>Not found</h1>')
}

/** Starts the site; it is closed by `defer`. */
export async function startDocsSite(defer: Defer): Promise<DocsSite> {
  const site: DocsSite = { url: '', requests: [], etag: '"v1"' }
  const server = createServer((req, res) => {
    site.requests.push(req.url ?? '/')
    route(req, res, site)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  site.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  defer(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return site
}
