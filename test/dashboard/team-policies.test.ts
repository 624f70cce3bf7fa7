/**
 * The teamspace pages of the cloud dashboard in Debian's Chromium against a real
 * `lectern serve --mode cloud`: an owner edits the policies and sees the accessible-library count
 * change before saving (nothing stored until Save), a developer sees them read-only, and a
 * library's metrics are charted from requests made with the teamspace's key over REST and MCP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { createAdmin } from '../helpers/dashboard-admin.js'
import { openPage, screenshot, unlabelledControls, type WatchedPage } from '../helpers/browser.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { TEST_PASSWORD } from '../helpers/session.js'
import { bearer, createTenants, type Tenants } from '../helpers/tenants.js'
import { suiteTeardown, tmpDataDir } from '../helpers/tmp.js'

const DOCS = { 'docs/guide.md': '# Guide\n\n## Mount a widget\n\nMount a widget into an element with render:\n\n```js\nrender(el, { kind: "gauge" })\n```\n' }
const ACME_OWN = '/acme/internal--t1'

let server: ServerProcess
let tenants: Tenants
let watched: WatchedPage
let page: Page

const settle = () => expect(watched.problems, 'CSP violations or script errors in the browser').toEqual([])
const count = () => page.getByRole('status', { name: 'Accessible libraries' }).textContent()
const savedPolicy = async () => (await (await fetch(`${server.url}/api/v2/policies`, { headers: bearer(tenants.acme.keys.owner) })).json()) as { libraryFilters: { mode: string | null } }

async function signInAs(email: string, path: string) {
  watched = await openPage(server.url)
  page = watched.page
  await page.goto(path)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

describe('the teamspace pages of the cloud dashboard', () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    const dataDir = await tmpDataDir(teardown)
    const seeding = await buildTestApp({ dataDir, mode: 'cloud', startWorker: false, defer: teardown })
    tenants = await createTenants(seeding)
    await seeding.runtime.store.libraries.create({ id: ACME_OWN, title: 'internal', sourceKind: 'git', sourceUrl: 'https://git.acme.example/acme/internal.git', isPrivate: true, teamPk: tenants.acme.teamPk })
    for (const id of ['/acme/router', '/acme/store', '/acme/forms', ACME_OWN]) await seedLibrary(seeding, id, DOCS)
    await seeding.close()
    // The operator, without whom the dashboard would show its first-run setup.
    await createAdmin(dataDir)
    server = await startServer(dataDir, {}, teardown, { args: ['--workers', '1', '--mode', 'cloud'] })
  }, 90_000)

  it("an owner sees the accessible count change as the form changes, before saving; Save stores it", async () => {
    await signInAs('owner@acme.example', `/teams/${tenants.acme.teamPk}/policies`)
    await expect.poll(count).toMatch(/^3 public libraries accessible$/)
    await page.getByLabel('Select: only the libraries listed').check()
    await expect.poll(count).toBe('0 public libraries accessible with these changes (not saved yet)')
    await page.getByLabel('New entry for allowed libraries').fill('/acme/router')
    await page.getByRole('button', { name: 'Add to allowed libraries' }).click()
    await expect.poll(count).toBe('1 public library accessible with these changes (not saved yet)')
    expect((await savedPolicy()).libraryFilters.mode).toBeNull()

    // A bad entry is refused at Add, with the reason at the field, and not added; a listed one too.
    const entry = page.getByLabel('New entry for allowed libraries')
    await entry.fill('not a library')
    await page.getByRole('button', { name: 'Add to allowed libraries' }).click()
    expect(await page.locator('#allowedLibraries-problem').textContent()).toBe('"not a library" is neither a library path (/org or /org/repo) nor a domain (example.com).')
    expect(await entry.getAttribute('aria-invalid')).toBe('true')
    expect(await entry.getAttribute('aria-describedby')).toBe('allowedLibraries-problem')
    expect(await page.getByRole('list', { name: 'Allowed libraries' }).textContent()).not.toContain('not a library')
    await entry.fill('/ACME/Router')
    await entry.press('Enter')
    expect(await page.locator('#allowedLibraries-problem').textContent()).toBe('/acme/router is in the list already.')
    expect(await page.getByRole('list', { name: 'Allowed libraries' }).getByRole('listitem').allTextContents()).toEqual(['/acme/router Remove'])
    await entry.fill('')
    expect(await entry.getAttribute('aria-invalid')).toBeNull()
    expect(await page.getByRole('alert').count()).toBe(0)
    expect(await count()).toBe('1 public library accessible with these changes (not saved yet)')

    await screenshot(page, 'team-policies')
    await page.getByRole('button', { name: 'Save' }).click()
    await expect.poll(count).toBe('1 public library accessible')
    expect(await page.getByRole('status', { name: 'Saved' }).textContent()).toBe('Saved.')
    expect(await savedPolicy()).toMatchObject({ libraryFilters: { mode: 'select', select: { allowedLibraries: ['/acme/router'] } } })
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true)

    // Quality mode with a blocked library and a threshold, then back to what is saved.
    await page.getByLabel('Quality: thresholds, with blocked and excepted libraries').check()
    expect(await page.getByRole('status', { name: 'Saved' }).textContent()).toBe('')
    await expect.poll(count).toBe('3 public libraries accessible with these changes (not saved yet)')
    // Verified only: the page says why the count drops to none.
    const verified = page.getByLabel('Verified libraries only')
    expect(await page.locator(`#${await verified.getAttribute('aria-describedby')}`).textContent()).toBe('This install verifies no library, so with this on only the excepted libraries pass.')
    await verified.check()
    await expect.poll(count).toBe('0 public libraries accessible with these changes (not saved yet)')
    await verified.uncheck()
    await page.getByLabel('New entry for blocked libraries').fill('/acme/store')
    await page.getByRole('button', { name: 'Add to blocked libraries' }).click()
    await expect.poll(count).toBe('2 public libraries accessible with these changes (not saved yet)')
    // Out of range: marked at the field before any request, and Save is off until it is fixed.
    const trust = page.getByLabel('Minimum trust score (0–10)')
    for (const bad of ['11', '2.5', '-1']) {
      await trust.fill(bad)
      await expect.poll(count).toBe('No count until the marked fields are fixed.')
      expect(await trust.getAttribute('aria-invalid')).toBe('true')
      expect(await page.locator('#minTrustScore-problem').textContent()).toBe('A whole number from 0 to 10, or empty for none.')
      expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true)
    }
    expect(await page.getByText('Save is off until these are fixed: Minimum trust score (0–10).').isVisible()).toBe(true)
    await page.getByLabel('Indexed within (days)').fill('0')
    expect(await page.locator('#maxAgeDays-problem').textContent()).toBe('A whole number of days, at least 1, or empty for none.')
    await page.getByLabel('Indexed within (days)').fill('')
    expect(await page.getByRole('alert').count()).toBe(0)
    await trust.fill('9')
    await expect.poll(count).toBe('0 public libraries accessible with these changes (not saved yet)')
    expect(await trust.getAttribute('aria-invalid')).toBeNull()
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(false)
    await page.getByRole('button', { name: 'Discard changes' }).click()
    await expect.poll(count).toBe('1 public library accessible')
    expect(await savedPolicy()).toMatchObject({ libraryFilters: { mode: 'select', quality: { blockedLibraries: [], minTrustScore: null } } })
    expect(await unlabelledControls(page)).toEqual([])
    settle()
  })

  it("shows the server's refusal next to the field it names: a blocked list past its 1000 entries", async () => {
    const patchPolicy = (body: object) =>
      fetch(`${server.url}/api/v2/policies`, { method: 'PATCH', headers: { ...bearer(tenants.acme.keys.owner), 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const full = Array.from({ length: 999 }, (_, i) => `/acme/blocked-${i}`)
    expect((await patchPolicy({ libraryFilters: { quality: { blockedLibraries: { add: full } } } })).status).toBe(200)
    await signInAs('owner@acme.example', `/teams/${tenants.acme.teamPk}/policies`)
    await expect.poll(count).toBe('1 public library accessible')
    await page.getByLabel('Quality: thresholds, with blocked and excepted libraries').check()
    const entry = page.getByLabel('New entry for blocked libraries')
    for (const id of ['/acme/one', '/acme/two']) {
      await entry.fill(id)
      await entry.press('Enter')
    }
    await expect.poll(count).toBe('No count: the server refuses these changes (see the marked field).')
    expect(await page.locator('#blockedLibraries-problem').textContent()).toBe('blockedLibraries may hold at most 1000 entries.')
    expect(await entry.getAttribute('aria-invalid')).toBe('true')
    expect(await page.getByRole('alert').count()).toBe(0)
    await page.getByRole('button', { name: 'Discard changes' }).click()
    await expect.poll(count).toBe('1 public library accessible')
    expect(await page.locator('#blockedLibraries-problem').count()).toBe(0)
    expect((await patchPolicy({ libraryFilters: { quality: { blockedLibraries: { clear: true } } } })).status).toBe(200)
    settle()
  })

  it('a developer sees the policies read-only', async () => {
    await signInAs('dev@acme.example', `/teams/${tenants.acme.teamPk}/policies`)
    await expect.poll(count).toBe('1 public library accessible')
    expect(await page.getByText('Only owners and admins may change them.').isVisible()).toBe(true)
    expect(await page.getByLabel('Public repositories').isDisabled()).toBe(true)
    expect(await page.getByLabel('Select: only the libraries listed').isChecked()).toBe(true)
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0)
    expect(await page.getByRole('textbox').count()).toBe(0)
    settle()
  })

  it("charts a teamspace library's requests by surface and its MCP users, with topics", async () => {
    const ask = (source: string) =>
      fetch(`${server.url}/api/v2/context?libraryId=${encodeURIComponent(ACME_OWN)}&query=mount%20a%20gauge%20widget`, { headers: { ...bearer(tenants.acme.keys.developer), 'x-context7-source': source } })
    for (const source of ['cursor', 'cursor', 'cli']) expect((await ask(source)).status).toBe(200)
    const client = new Client({ name: 'metrics-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { ...bearer(tenants.acme.keys.owner), 'x-context7-source': 'claude-code' } } }))
    await client.callTool({ name: 'query-docs', arguments: { libraryId: ACME_OWN, query: 'mount a gauge widget' } })
    await client.close()

    await signInAs('owner@acme.example', `/teams/${tenants.acme.teamPk}/libraries`)
    await expect.poll(() => page.getByRole('row', { name: new RegExp(ACME_OWN) }).textContent()).toMatch(/private, this teamspace's.*ready/)
    expect(await page.getByRole('row', { name: /\/acme\/router/ }).textContent()).toMatch(/public/)
    expect(await page.getByRole('row', { name: /\/acme\/store/ }).count()).toBe(0)
    await page.getByRole('link', { name: ACME_OWN }).click()
    await expect.poll(() => page.getByRole('status', { name: 'Requests in the period' }).textContent()).toBe('4 requests in the last 7 days (MCP 1, REST 2, CLI 1, Web pages 0)')
    const today = new Date().toISOString().slice(0, 10)
    const requests = page.getByRole('img', { name: 'Requests per day by surface, last 7 days' })
    expect(await requests.locator('g[data-day]').count()).toBe(7)
    expect(await requests.locator(`g[data-day="${today}"]`).getAttribute('data-total')).toBe('4')
    const users = page.getByRole('img', { name: 'Unique MCP users per day by client, last 7 days' })
    expect(await users.locator(`g[data-day="${today}"]`).getAttribute('data-total')).toBe('1')
    expect(await page.getByRole('table', { name: 'Topics asked' }).getByRole('row', { name: /gauge/ }).textContent()).toMatch(/gauge\s*4/)
    await screenshot(page, 'team-library-metrics')
    settle()
  })
})
