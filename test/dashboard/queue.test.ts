/**
 * The Parse Queue in Chromium against a real `lectern serve --workers 2`: a private repository
 * added from the page with its access token, its job held running by the git host, followed live,
 * cancelled from the page; the token never reaches the page.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { openPage, screenshot, type WatchedPage } from '../helpers/browser.js'
import { createAdmin, signIn } from '../helpers/dashboard-admin.js'
import { makeGitRepo } from '../helpers/git.js'
import { GIT_TOKEN, startHeldGitHost, type HeldGitHost } from '../helpers/held-git.js'
import { inspect } from '../helpers/inspect-db.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

let server: ServerProcess
let dataDir: string
let git: HeldGitHost
let watched: WatchedPage

describe('the Parse Queue', () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    const remotes = await tmpDir('lectern-remotes-', teardown)
    await makeGitRepo({ 'docs/guide.md': '# Guide\n\n## Draw\n\nDraw a widget.\n\n```js\ndrawWidget()\n```\n' }, { parent: remotes, name: 'vault' })
    await makeGitRepo({ 'docs/guide.md': '# Guide\n\n## Draw\n\nDraw a widget:\n\n{* docs_src/draw.py *}\n\n```js\ndrawWidget()\n```\n' }, { parent: remotes, name: 'gaps' })
    git = await startHeldGitHost(remotes, teardown)
    dataDir = await tmpDataDir(teardown)
    await createAdmin(dataDir)
    server = await startServer(dataDir, git.env, teardown, { args: ['--workers', '2'] })
    watched = await openPage(server.url, teardown)
  }, 90_000)

  it('follows a running job live and cancels it; the library says why, and the token is never shown', async () => {
    const { page } = watched
    await signIn(page, '/libraries')
    git.hold = true
    await page.getByText('Add a library').click()
    await page.getByLabel('URL', { exact: true }).fill('https://github.com/acme/vault')
    await page.getByLabel(/^Access token/).fill(GIT_TOKEN)
    await page.getByRole('switch', { name: /^Private/ }).check()
    await page.getByRole('switch', { name: /^Keep docs of older versions/ }).check()
    await page.getByRole('button', { name: 'Add', exact: true }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Queued /acme/vault')
    // The form's options reach the library as a script's request would set them.
    const stored = inspect(dataDir, (db) => db.prepare("SELECT is_private, options FROM libraries WHERE id = '/acme/vault'").get()) as { is_private: number; options: string }
    expect(stored.is_private).toBe(1)
    expect(JSON.parse(stored.options)).toMatchObject({ skipVersionFiltering: true, generateDocs: false })

    await page.getByRole('link', { name: 'Parse Queue' }).first().click()
    const running = page.getByRole('article', { name: /^Job \d+$/ })
    await expect.poll(() => running.textContent(), { timeout: 20_000 }).toContain('/acme/vault')
    await expect.poll(() => git.held).toBeGreaterThan(0)
    await screenshot(page, 'queue-running')
    await running.getByRole('button', { name: 'Cancel' }).click()

    const ended = page.locator('details.job-failed').first()
    await expect.poll(() => ended.textContent(), { timeout: 20_000 }).toContain('/acme/vault')
    await ended.locator('summary').click()
    await expect.poll(() => ended.getByLabel(/Log of job/).textContent()).toMatch(/cancel/i)
    expect(await page.content()).not.toContain(GIT_TOKEN)

    await page.getByRole('link', { name: 'Libraries' }).first().click()
    const row = page.getByRole('row', { name: /\/acme\/vault/ })
    await expect.poll(() => row.textContent()).toContain('error')
    expect(await row.textContent()).toMatch(/cancel/i)
    expect(await row.textContent()).toContain('Private')
    expect(await page.content()).not.toContain(GIT_TOKEN)
    await page.goto(`${server.url}/libraries/acme/vault`)
    const report = page.getByRole('region', { name: 'Extraction report' })
    await expect.poll(() => report.textContent()).toContain('No report: no ingest of this version has read its pages (the last one failed: cancelled).')
    expect(watched.problems).toEqual([])
  }, 60_000)

  it('marks a job that skipped an include as succeeded with warnings; the library page shows the extraction report, worst first', async () => {
    const { page } = watched
    git.hold = false
    await page.getByRole('link', { name: 'Libraries' }).first().click()
    await page.getByText('Add a library').click()
    await page.getByLabel('URL', { exact: true }).fill('https://github.com/acme/gaps')
    await page.getByLabel(/^Access token/).fill(GIT_TOKEN)
    await page.getByRole('button', { name: 'Add', exact: true }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Queued /acme/gaps')

    await page.getByRole('link', { name: 'Parse Queue' }).first().click()
    const ended = page.locator('details.job-succeeded', { hasText: '/acme/gaps' })
    await expect.poll(() => ended.count(), { timeout: 30_000 }).toBe(1)
    expect(await ended.locator('.badge').textContent()).toBe('succeeded with 1 warning')
    expect(await ended.locator('summary').textContent()).toContain('with warnings: 1 include that read no file (lectern inspect /acme/gaps)')

    await page.goto(`${server.url}/libraries/acme/gaps`)
    const report = page.getByRole('region', { name: 'Extraction report' })
    await expect.poll(() => report.textContent()).toContain('Includes that read no file (1)')
    const worst = report.locator('details').first()
    expect(await worst.getAttribute('open')).not.toBeNull()
    expect(await worst.textContent()).toMatch(/docs\/guide\.md:7.*docs_src\/draw\.py.*not found/)
    await screenshot(page, 'extraction-report')
    expect(watched.problems).toEqual([])
  }, 60_000)
})
