/**
 * The Usage page in Chromium against a real `lectern serve`: requests made over REST and MCP
 * first, then the chart's bars and the table's numbers read from the page, for each window.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { openPage, screenshot, type WatchedPage } from '../helpers/browser.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir } from '../helpers/tmp.js'
import { createAdmin, signIn } from '../helpers/dashboard-admin.js'

const DOCS = { 'README.md': '# Widgets\n\n## Register a route\n\nCall `app.get(path, handler)` to register a route.\n\n```js\napp.get("/", h)\n```\n' }

let server: ServerProcess
let watched: WatchedPage
let page: Page

const cells = (row: string) => page.getByRole('row', { name: new RegExp(row) }).getByRole('cell').allTextContents()

describe('the Usage page', () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    const dataDir = await tmpDataDir(teardown)
    const seeding = await buildTestApp({ dataDir, startWorker: false, defer: teardown })
    await seedLibrary(seeding, '/acme/widgets', DOCS)
    await seedLibrary(seeding, '/acme/gadgets', DOCS)
    await seeding.close()
    await createAdmin(dataDir)
    // One process: its own pending counts are flushed for the report; other workers' land within 5 s.
    server = await startServer(dataDir, {}, teardown, { args: ['--workers', '1'] })
    watched = await openPage(server.url, teardown)
    page = watched.page
  }, 90_000)

  it('shows an empty state before any request', async () => {
    await signIn(page, '/usage')
    await expect.poll(() => page.getByRole('heading', { name: 'Usage' }).isVisible()).toBe(true)
    await expect.poll(() => page.getByText('No requests in these 7 days').isVisible()).toBe(true)
    expect(await page.getByRole('img', { name: 'Requests per day, last 7 days' }).locator('g[data-day]').count()).toBe(7)
    expect(watched.problems).toEqual([])
  })

  it('charts and tabulates the requests made over REST and MCP', async () => {
    const ask = (id: string, type: string, source: string) =>
      fetch(`${server.url}/api/v2/context?libraryId=${encodeURIComponent(id)}&query=register%20a%20route&type=${type}`, { headers: { 'x-context7-source': source } })
    for (const [id, type, source] of [
      ['/acme/widgets', 'txt', 'cursor'],
      ['/acme/widgets', 'txt', 'cursor'],
      ['/acme/widgets', 'json', 'cursor'],
      ['/acme/gadgets', 'txt', 'curl'],
    ]) {
      expect((await ask(id!, type!, source!)).status).toBe(200)
    }
    const client = new Client({ name: 'usage-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { 'x-context7-source': 'claude-code' } } }))
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'query-docs', arguments: { libraryId: '/acme/gadgets', query: 'register a route' } })
    await client.close()

    await page.getByRole('button', { name: 'Last 30 days' }).click()
    await expect.poll(() => page.getByRole('status', { name: 'Total requests' }).textContent()).toContain('7 requests')
    expect(await page.getByRole('status', { name: 'Total requests' }).textContent()).toContain('MCP (HTTP) 3')
    expect(await cells('/acme/widgets')).toEqual(['3', '2', '1', '0', '0', 'cursor 3'])
    expect(await cells('/acme/gadgets')).toEqual(['4', '1', '0', '3', '0', 'claude-code 3, curl 1'])
    // Gadgets was asked more: it comes first.
    expect(await page.locator('tbody th').allTextContents()).toEqual(['/acme/gadgets', '/acme/widgets'])

    const bars = page.getByRole('img', { name: 'Requests per day, last 30 days' }).locator('g[data-day]')
    expect(await bars.count()).toBe(30)
    const today = new Date().toISOString().slice(0, 10)
    expect(await bars.last().getAttribute('data-day')).toBe(today)
    expect(await bars.last().getAttribute('data-total')).toBe('7')
    expect(await bars.last().locator('rect').count()).toBe(3)
    expect(await bars.first().getAttribute('data-total')).toBe('0')
    await screenshot(page, 'usage')

    await page.getByRole('button', { name: 'Last 90 days' }).click()
    await expect.poll(() => page.getByRole('img', { name: 'Requests per day, last 90 days' }).locator('g[data-day]').count()).toBe(90)
    expect(await page.getByRole('button', { name: 'Last 90 days' }).getAttribute('aria-pressed')).toBe('true')
    expect(await page.getByRole('link', { name: '/acme/widgets' }).getAttribute('href')).toBe('/libraries/acme/widgets')
    expect(watched.problems).toEqual([])
  })
})
