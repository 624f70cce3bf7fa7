/**
 * A site that builds its content with JavaScript, crawled with and without rendering in a real
 * Chromium (Debian's, installed by .ci/run) driven by playwright-core.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'

const PAGE = `<!doctype html><html><head><title>Gauges</title></head><body>
<nav>Acme Docs Home</nav>
<main id="app"></main>
<script>
  document.getElementById('app').innerHTML = '<h1>Gauges</h1><h2>Draw a gauge</h2>' +
    '<p>Draw a rendered gauge on any canvas element with drawGauge and a value between zero and one hundred.</p>' +
    '<pre><code class="language-js">drawGauge(canvas, { value: 42 })</code></pre>'
</script></body></html>`

async function serveSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end()
    if (req.url === '/sitemap.xml') return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

const add = (app: Awaited<ReturnType<typeof buildTestApp>>, key: string, websiteUrl: string, render: boolean) =>
  app.inject({ method: 'POST', url: '/api/v2/add/website', headers: { authorization: `Bearer ${key}` }, payload: { websiteUrl, render } })

describe('websites that need JavaScript', () => {
  it('are read after rendering in Chromium, and hold nothing without it', async () => {
    const site = await serveSite()
    try {
      const plain = await buildTestApp()
      const id = (await add(plain, await createKey(plain), site.url, false)).json().libraryName
      expect(await waitForLibrary(plain, id)).toMatchObject({ state: 'error', errorCode: 'no_code_found' })

      const rendered = await buildTestApp()
      expect((await add(rendered, await createKey(rendered), site.url, true)).statusCode).toBe(200)
      expect(await waitForLibrary(rendered, id, 60_000)).toMatchObject({ state: 'finalized' })
      const answer = await rendered.inject({ url: `/api/v2/context?libraryId=${id}&query=draw a gauge&type=json` })
      expect(answer.json().codeSnippets[0]).toMatchObject({ codeLanguage: 'javascript', codeList: [{ code: 'drawGauge(canvas, { value: 42 })' }] })
    } finally {
      await site.close()
    }
  }, 90_000)

  it('cannot be rendered in cloud mode, where the browser would bypass the address guard', async () => {
    const app = await buildTestApp({ mode: 'cloud' })
    const id = (await add(app, await createKey(app), 'https://docs.example.com/', true)).json().libraryName
    expect(await waitForLibrary(app, id)).toMatchObject({ state: 'error', errorMessage: expect.stringContaining('on-premise only') })
  })
})
