/**
 * The Backups page in Debian's Chromium against a real `lectern serve`: back up now, restore an
 * archive through the page while the server restarts under it (supervised, in the same process),
 * the settings form with a directory and with S3 (s3rver on 127.0.0.1, standing in for AWS), and
 * a restore whose archive does not know the browser's session, which ends on the sign-in page.
 */
import fs from 'node:fs'
import type { Page } from 'playwright-core'
// s3rver ships no types.
// @ts-expect-error untyped module
import S3rver from 's3rver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { openPage, screenshot, type WatchedPage } from '../helpers/browser.js'
import { runCli } from '../helpers/cli.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

const EMAIL = 'ops@example.com'
const PASSWORD = 'correct horse battery'
/** s3rver takes any secret: a distinct one shows it is never sent back. */
const SECRET = 'secret-never-shown-5f1c'
const teardown = suiteTeardown()

let endpoint: string
let s3rver: { run(): Promise<{ port: number }>; close(): Promise<void> }

beforeAll(async () => {
  s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: await tmpDir('lectern-s3rver-', teardown), configureBuckets: [{ name: 'bk' }] })
  endpoint = `http://127.0.0.1:${(await s3rver.run()).port}`
})
afterAll(async () => s3rver.close())

/** A new API key, made through the CLI beside the running server. */
async function createKey(dataDir: string, name: string): Promise<string> {
  const created = await runCli(['keys', 'create', '--name', name, '--data-dir', dataDir, '--json'])
  expect(created.exitCode, created.stderr).toBe(0)
  return (JSON.parse(created.stdout) as { key: string }).key
}

/** What a key finds for "widgets": the status and the library IDs (the Libraries page lands with another branch). */
async function searchWidgets(url: string, key: string): Promise<[number, string[]]> {
  const res = await fetch(`${url}/api/v2/libs/search?libraryName=widgets`, { headers: { authorization: `Bearer ${key}` } })
  const body = (await res.json()) as { results?: Array<{ id: string }> }
  return [res.status, (body.results ?? []).map((r) => r.id)]
}

/** A data dir with an admin and one library, made before the server starts. */
async function preparedDataDir(): Promise<{ dataDir: string; key: string }> {
  const dataDir = await tmpDataDir(teardown)
  const app = await buildTestApp({ dataDir, startWorker: false, defer: () => {} })
  await seedLibrary(app, '/acme/widgets', { 'README.md': '# Widgets\n\n## Install\n\nRun `npm install widgets` to install.\n\n```js\nwidgets.render()\n```\n' })
  await app.close()
  const created = await runCli(['admin', 'create', EMAIL, '--data-dir', dataDir], {}, { input: `${PASSWORD}\n` })
  expect(created.exitCode, created.stderr).toBe(0)
  return { dataDir, key: await createKey(dataDir, 'made-before-the-backup') }
}

/** Playwright's own waits: this also runs in beforeAll, where expect.poll may not. */
async function signIn(page: Page) {
  await page.getByRole('heading', { name: 'Sign in to Lectern' }).waitFor({ timeout: 20_000 })
  await page.getByLabel('Email', { exact: true }).fill(EMAIL)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

async function openBackups(page: Page) {
  await page.getByRole('link', { name: 'Backups' }).click()
  await expect.poll(() => page.getByRole('heading', { name: 'Backups' }).isVisible()).toBe(true)
}

/** Backs up through the page and answers the new archive's name, once it is listed. */
async function backUpNow(page: Page): Promise<string> {
  const last = page.getByRole('status').filter({ hasText: /Last backup|No backup has run yet/ })
  const before = await last.textContent()
  await page.getByRole('button', { name: 'Back up now' }).click()
  await expect.poll(async () => ((await last.textContent()) !== before ? await last.textContent() : ''), { timeout: 20_000 }).toMatch(/Last backup: lectern-backup-/)
  const name = /lectern-backup-[\dT-]+\.tar\.gz/.exec((await last.textContent()) ?? '')![0]
  await expect.poll(() => page.getByRole('cell', { name, exact: true }).isVisible()).toBe(true)
  return name
}

/** Restores `name` from the list, checking the dry run and the typed confirmation on the way. */
async function restoreThroughPage(page: Page, name: string) {
  await page.getByRole('button', { name: `Restore ${name}` }).click()
  const panel = page.getByRole('article', { name: `Restore ${name}` })
  await expect.poll(() => panel.getByLabel('Archive contents').textContent()).toContain('/acme/widgets')
  const confirm = panel.getByRole('button', { name: 'Restore this archive' })
  expect(await confirm.isDisabled()).toBe(true)
  await panel.getByLabel('Type the archive name to confirm').fill(name.slice(0, -1))
  expect(await confirm.isDisabled()).toBe(true)
  await panel.getByLabel('Type the archive name to confirm').fill(name)
  expect(await confirm.isDisabled()).toBe(false)
  await screenshot(page, 'backups-restore')
  await confirm.click()
  await expect.poll(() => panel.getByRole('status').textContent()).toContain('The restore is staged')
}

for (const workers of [1, 2]) {
  describe(`the Backups page (serve --workers ${workers})`, () => {
    let server: ServerProcess
    let dataDir: string
    /** Made before any backup: every restore keeps it. */
    let keptKey: string
    let watched: WatchedPage
    let page: Page
    // Chromium also logs refused requests as errors: the 400s these tests provoke, the 404 of the
    // Libraries page's list (its API lands with another branch), and while a restore restarts the
    // server, the 503 of a request that reaches the server as it closes, refused connections and
    // the 401 of a session the archive does not have. Everything else counts.
    const settle = () =>
      expect(
        watched.problems.filter((p) => !/^Failed to load resource: (the server responded with a status of (40[014]|503) |net::ERR_CONNECTION_REFUSED$)/.test(p)),
        'CSP violations or script errors in the browser',
      ).toEqual([])

    beforeAll(async () => {
      ;({ dataDir, key: keptKey } = await preparedDataDir())
      server = await startServer(dataDir, {}, teardown, { args: ['--workers', String(workers)] })
      watched = await openPage(server.url, teardown)
      page = watched.page
      // An action that cannot happen fails with the step named, within the test's time.
      page.setDefaultTimeout(15_000)
      await page.goto('/')
      await signIn(page)
      await page.getByRole('heading', { name: 'Libraries' }).waitFor()
    }, 90_000)

    it('backs up now, then restores that archive: a key made after it is gone, the server restarts and the page shows the restore', async () => {
      await openBackups(page)
      await expect.poll(() => page.getByText('No archives yet').isVisible()).toBe(true)
      const name = await backUpNow(page)
      const row = page.getByRole('row', { name: new RegExp(name.replace(/\./g, '\\.')) })
      expect(await row.textContent()).toContain('dir:')
      const download = await page.request.get(`/api/backups/${name}/download`)
      expect([download.status(), download.headers()['content-type']]).toEqual([200, 'application/gzip'])
      await screenshot(page, 'backups')

      // A change after the backup: a key the restore must take away.
      expect(await searchWidgets(server.url, keptKey)).toEqual([200, ['/acme/widgets']])
      const laterKey = await createKey(dataDir, 'made-after-the-backup')
      expect((await searchWidgets(server.url, laterKey))[0]).toBe(200)
      await openBackups(page)
      await restoreThroughPage(page, name)
      // The page reloads itself once the restarted server reports the restore.
      await expect.poll(() => page.getByLabel('Last restore').textContent(), { timeout: 60_000 }).toContain(`Restored ${name}`)
      expect(await page.getByLabel('Last restore').textContent()).toContain('pre-restore-')
      expect((await searchWidgets(server.url, laterKey))[0]).toBe(401)
      expect(await searchWidgets(server.url, keptKey)).toEqual([200, ['/acme/widgets']])
      settle()
    }, 120_000)

    it('saves a directory destination, a cron schedule with its next runs and a retention, and refuses a bad cron with the API’s message', async () => {
      await openBackups(page)
      const form = page.getByRole('form', { name: 'Backup settings' })
      const dir = await tmpDir('lectern-backups-', teardown)
      await form.getByLabel(/Backup directory/).fill(dir)
      await form.getByRole('button', { name: 'Test connection' }).click()
      await expect.poll(() => form.getByRole('status').textContent()).toContain('can be listed and written')

      await form.getByLabel(/^Runs/).selectOption('custom')
      await form.getByLabel(/Cron expression/).fill('0 0 31 2 *')
      await expect.poll(() => form.getByRole('alert').textContent()).toContain('names no date that exists')
      await form.getByLabel(/Cron expression/).fill('30 1 * * *')
      await form.getByLabel(/Time zone/).fill('Europe/Berlin')
      await expect.poll(() => form.getByLabel('Next runs').textContent()).toMatch(/Next runs.*·.*·/)
      await form.getByLabel('Keep all archives').uncheck()
      await form.getByLabel('Keep the newest').fill('2')
      await form.getByRole('button', { name: 'Save settings' }).click()
      await expect.poll(() => form.getByRole('status').textContent()).toContain('Saved')

      const config = await (await page.request.get('/api/backup/config')).json()
      expect(config).toEqual({ destination: { type: 'dir', path: dir }, schedule: { expression: '30 1 * * *', timeZone: 'Europe/Berlin' }, retention: { keep: 2 } })
      await backUpNow(page)
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('lectern-backup-'))).toHaveLength(1)
      await page.reload()
      await expect.poll(() => page.getByLabel(/Cron expression/).inputValue()).toBe('30 1 * * *')
      settle()
    }, 60_000)

    it('tests S3 settings against the store (a wrong bucket shows the store’s reason), saves them, and never shows the secret', async () => {
      await openBackups(page)
      const form = page.getByRole('form', { name: 'Backup settings' })
      await form.getByLabel(/^S3/).check()
      await form.getByLabel('Bucket').fill('no-such-bucket')
      await form.getByLabel('Region').fill('eu-west-1')
      await form.getByLabel(/Access key ID/).fill('S3RVER')
      await form.getByLabel('Secret access key').fill(SECRET)
      await form.getByLabel(/Endpoint/).fill(endpoint)
      await form.getByLabel(/Path-style/).check()
      await form.getByLabel('Key prefix').fill('team')
      await form.getByRole('button', { name: 'Test connection' }).click()
      await expect.poll(() => form.getByRole('alert').textContent()).toContain('s3://no-such-bucket/team/ cannot be listed: NoSuchBucket')

      await form.getByLabel('Bucket').fill('bk')
      await form.getByRole('button', { name: 'Test connection' }).click()
      await expect.poll(() => form.getByRole('status').textContent()).toContain('can be listed and written')
      await form.getByRole('button', { name: 'Save settings' }).click()
      await expect.poll(() => form.getByRole('status').textContent()).toContain('Saved')
      expect(await form.getByLabel('Secret access key').inputValue()).toBe('')
      expect(await form.getByText('A secret is set').isVisible()).toBe(true)
      await screenshot(page, 'backups-settings')

      // Backups go to the bucket; the list says why there is no download or restore here.
      await backUpNow(page)
      expect(await page.getByText('the dashboard downloads and restores only from a local directory').isVisible()).toBe(true)
      expect(await page.getByRole('link', { name: /^Download/ }).count()).toBe(0)

      // Left empty, the stored secret is the one tested; "remove" clears it.
      await form.getByRole('button', { name: 'Test connection' }).click()
      await expect.poll(() => form.locator('[role=status], [role=alert]').first().textContent()).toContain('can be listed and written')
      await form.getByLabel('Remove the stored secret').check()
      await form.getByRole('button', { name: 'Save settings' }).click()
      await expect.poll(() => form.getByText('No secret is stored').isVisible()).toBe(true)
      const config = await (await page.request.get('/api/backup/config')).text()
      expect(config).toContain('"secretSet":false')
      expect(config).not.toContain(SECRET)
      expect(await page.content()).not.toContain(SECRET)
      settle()
    }, 60_000)

    if (workers === 2) {
      it('restores an archive that does not know this browser’s session: the page ends on sign-in, then shows the restore', async () => {
        await page.request.put('/api/backup/config', { data: { destination: { type: 'dir', path: null } }, headers: { origin: server.url } })
        await openBackups(page)
        const name = await backUpNow(page)
        // A new session, made after the backup: the restored data has no such session.
        await page.getByRole('button', { name: 'Sign out' }).click()
        await signIn(page)
        await openBackups(page)
        await restoreThroughPage(page, name)
        await signIn(page)
        await openBackups(page)
        await expect.poll(() => page.getByLabel('Last restore').textContent(), { timeout: 30_000 }).toContain(`Restored ${name}`)
        settle()
      }, 120_000)
    }
  })
}
