/**
 * A teamspace's Connections page and "Add a private source" in Debian's Chromium against a real
 * `lectern serve --mode cloud`: an owner stores a Confluence connection (the token never shown
 * again) and adds a space through it from the Libraries page, which indexes it as the teamspace's
 * library; a developer sees the connections without the means to change them. Confluence cannot
 * run here: a loopback STAND-IN speaks the subset of its API Lectern reads
 * (test/helpers/workspace-standins.ts), reachable because LECTERN_FETCH_ALLOW names 127.0.0.1.
 */
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'
import { createAdmin } from '../helpers/dashboard-admin.js'
import { openPage, screenshot, unlabelledControls, type WatchedPage } from '../helpers/browser.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { TEST_PASSWORD } from '../helpers/session.js'
import { createTenants, type Tenants } from '../helpers/tenants.js'
import { suiteTeardown, tmpDataDir } from '../helpers/tmp.js'
import { confluenceStandIn, type StandIn } from '../helpers/workspace-standins.js'

const TOKEN = 'acme-confluence-dashboard-token'

let server: ServerProcess
let tenants: Tenants
let wiki: StandIn
let watched: WatchedPage
let page: Page

const settle = () => expect(watched.problems, 'CSP violations or script errors in the browser').toEqual([])

async function signInAs(email: string, path: string) {
  watched = await openPage(server.url)
  page = watched.page
  await page.goto(path)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

describe("a teamspace's connections in the cloud dashboard", () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    wiki = await confluenceStandIn({ flavor: 'datacenter', spaceKey: 'OPS', token: TOKEN, pages: [
      { id: '501', title: 'Deployments', storage: '<h2>Scale a deployment</h2><p>Change the replica count of a running deployment with kubectl scale, never by editing its manifest by hand.</p>' },
    ] }, teardown)
    const dataDir = await tmpDataDir(teardown)
    const seeding = await buildTestApp({ dataDir, mode: 'cloud', startWorker: false, defer: teardown })
    tenants = await createTenants(seeding)
    await seeding.close()
    await createAdmin(dataDir)
    server = await startServer(dataDir, { LECTERN_FETCH_ALLOW: '127.0.0.1' }, teardown, { args: ['--workers', '1', '--mode', 'cloud'] })
  }, 90_000)

  it('an owner stores a Confluence connection and adds a space through it from the Libraries page', async () => {
    await signInAs('owner@acme.example', `/teams/${tenants.acme.teamPk}/connections`)
    await expect.poll(() => page.getByText('No connections yet.').count()).toBe(1)
    await page.getByLabel('Connection kind').selectOption('confluence')
    await page.getByLabel('Name', { exact: true }).fill('wiki')
    await page.getByLabel('Site URL').fill(wiki.url)
    await page.getByLabel('Token (write-only)').fill(TOKEN)
    await page.getByRole('button', { name: 'Add connection' }).click()
    await expect.poll(() => page.getByRole('button', { name: 'Remove connection wiki' }).count()).toBe(1)
    expect(await page.getByLabel('Token (write-only)').inputValue()).toBe('')
    expect(await page.content()).not.toContain(TOKEN)
    expect(await unlabelledControls(page)).toEqual([])
    await screenshot(page, 'cloud-connections')

    await page.getByRole('link', { name: 'Libraries' }).click()
    await page.getByText('Add a private source').click()
    await page.getByLabel('Space key').fill('OPS')
    await page.getByLabel('Title').fill('Ops handbook')
    await page.getByRole('button', { name: 'Add source' }).click()
    const id = `/confluence/ops-handbook--t${tenants.acme.teamPk}`
    await expect.poll(() => page.getByRole('status').textContent()).toContain(`Library ${id} submitted`)
    await expect.poll(() => page.getByRole('row', { name: new RegExp(id) }).textContent(), { timeout: 30_000 }).toContain('ready')
    expect(wiki.requests.length).toBeGreaterThan(0)
    expect(wiki.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true)
    expect(await unlabelledControls(page)).toEqual([])
    settle()
  }, 60_000)

  it("an owner adds a repository of a git connection's host; one this server cannot resolve is taken, saying how fetch.allow works", async () => {
    await signInAs('owner@acme.example', `/teams/${tenants.acme.teamPk}/connections`)
    await expect.poll(() => page.getByRole('button', { name: 'Remove connection wiki' }).count()).toBe(1)
    await page.getByLabel('Connection kind').selectOption('git')
    await page.getByLabel('Name', { exact: true }).fill('internal-git')
    await page.getByLabel('Host').fill('git.acme.invalid')
    await page.getByLabel('Token (write-only)').fill('glpat-dashboard-token')
    await page.getByRole('button', { name: 'Add connection' }).click()
    await expect.poll(() => page.getByRole('button', { name: 'Remove connection internal-git' }).count()).toBe(1)

    await page.getByRole('link', { name: 'Libraries' }).click()
    await page.getByText('Add a private source').click()
    await page.getByLabel('Connection to read through').selectOption('internal-git')
    // A repository takes its URL alone: no page IDs or title to fill.
    expect(await page.getByLabel('Title').count()).toBe(0)
    await page.getByLabel('Repository URL').fill('https://git.acme.invalid/platform/sdk')
    await page.getByRole('button', { name: 'Add source' }).click()
    const id = `/platform/sdk--t${tenants.acme.teamPk}`
    await expect.poll(() => page.getByRole('status').textContent()).toContain(`Library ${id} submitted`)
    expect(await page.getByRole('status').textContent()).toMatch(/git\.acme\.invalid does not resolve .* names it in fetch\.allow \(LECTERN_FETCH_ALLOW\)/)
    await expect.poll(() => page.getByRole('row', { name: new RegExp(id) }).textContent(), { timeout: 30_000 }).toContain('git.acme.invalid does not resolve')
    expect(await unlabelledControls(page)).toEqual([])
    settle()
  }, 60_000)

  it('a developer sees the connections, with no form to add and no button to remove', async () => {
    await signInAs('dev@acme.example', `/teams/${tenants.acme.teamPk}/connections`)
    await expect.poll(() => page.getByRole('cell', { name: 'wiki' }).count()).toBe(1)
    expect(await page.getByText('Owners and admins add and remove connections.').count()).toBe(1)
    expect(await page.getByRole('button', { name: 'Add connection' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Remove connection wiki' }).count()).toBe(0)
    await page.getByRole('link', { name: 'Libraries' }).click()
    await expect.poll(() => page.getByRole('heading', { name: 'Libraries' }).count()).toBe(1)
    expect(await page.getByText('Add a private source').count()).toBe(0)
    settle()
  }, 60_000)
})
