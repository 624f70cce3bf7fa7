/**
 * The Import / export page in Chromium against real `lectern serve` processes. A cloud-mode
 * server's real export (`lectern export`, zip and JSON) is imported by an on-premise server
 * through the page: refused without a license (with how to install one), then queued, skipped
 * without "Overwrite existing" and queued again with it. On the cloud server the page selects
 * libraries (the 51st refused), downloads lectern-libraries.zip, and its entries are read back.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import yauzl from 'yauzl'
import { buildTestApp } from '../helpers/app.js'
import { openPage, screenshot, type WatchedPage } from '../helpers/browser.js'
import { runCli } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { licenseKeys, offlineLicense, seedDocs } from '../airgap/helpers.js'
import { createAdmin, signIn } from '../helpers/dashboard-admin.js'

/** Every entry of a zip, as text, read with yauzl rather than the bundle reader under test. */
function zipEntries(file: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err)
      const entries = new Map<string, string>()
      zip.on('entry', (entry: yauzl.Entry) =>
        zip.openReadStream(entry, (error, stream) => {
          if (error) return reject(error)
          const chunks: Buffer[] = []
          stream.on('data', (chunk: Buffer) => chunks.push(chunk))
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks).toString('utf8'))
            zip.readEntry()
          })
        }),
      )
      zip.on('end', () => resolve(entries))
      zip.on('error', reject)
      zip.readEntry()
    })
  })
}

describe('the Import / export page', () => {
  const teardown = suiteTeardown()
  let cloudDir: string
  let work: string
  let keys: ReturnType<typeof licenseKeys>

  beforeAll(async () => {
    keys = licenseKeys(teardown)
    work = await tmpDir('lectern-transfer-', teardown)
    cloudDir = await tmpDataDir(teardown)
    const seeding = await buildTestApp({ dataDir: cloudDir, mode: 'cloud', startWorker: false, defer: teardown })
    await seedDocs(seeding, '/acme/widgets', 4)
    await seedDocs(seeding, '/acme/gadgets', 3)
    for (let i = 1; i <= 50; i++) await seedDocs(seeding, `/bulk/lib${String(i).padStart(2, '0')}`, 1)
    const { libraries } = seeding.runtime.store
    await seedDocs(seeding, '/acme/secret', 1)
    await libraries.update((await libraries.byId('/acme/secret'))!.pk, { isPrivate: true })
    await seeding.close()
    const env = { LECTERN_DATA_DIR: cloudDir, LECTERN_MODE: 'cloud' }
    const zip = await runCli(['export', '/acme/widgets', '/acme/gadgets', '-o', path.join(work, 'lectern-libraries.zip')], env)
    expect(zip.exitCode, zip.stderr).toBe(0)
    const json = await runCli(['export', '/acme/widgets', '--json', '-o', path.join(work, 'widgets.json')], env)
    expect(json.exitCode, json.stderr).toBe(0)
    await createAdmin(cloudDir)
  }, 120_000)

  describe('on-premise: import', () => {
    let server: ServerProcess
    let dataDir: string
    let watched: WatchedPage
    let page: Page

    beforeAll(async () => {
      dataDir = await tmpDataDir(teardown)
      await createAdmin(dataDir)
      server = await startServer(dataDir, keys.env, teardown, { args: ['--workers', '1'] })
      watched = await openPage(server.url, teardown)
      page = watched.page
    }, 90_000)

    const importFile = async (file: string, overwrite: boolean) => {
      await page.getByLabel('Bundle or JSON payload').setInputFiles(path.join(work, file))
      await page.getByLabel(/Overwrite existing/).setChecked(overwrite)
      await page.getByRole('button', { name: 'Import', exact: true }).click()
    }
    const listed = (name: string) => page.getByRole('list', { name }).getByRole('listitem').allTextContents()
    const finalized = (id: string) =>
      pollUntil(`${id} imported`, async () => {
        const res = await fetch(`${server.url}/api/v2/libs/search?libraryName=${encodeURIComponent(id)}`)
        const body = (await res.json()) as { results?: Array<{ id: string; state: string }> }
        return body.results?.find((r) => r.id === id && r.state === 'finalized')
        // The job process runs at nice 19: on a machine the other suites keep busy, an import
        // that takes half a second alone can wait tens of seconds for the CPU.
      }, 90_000)

    it('without a license: shows the API refusal and how to install one, and imports nothing', async () => {
      await signIn(page, '/transfer')
      await expect.poll(() => page.getByRole('heading', { name: 'Import / export' }).isVisible()).toBe(true)
      // Said before any upload.
      await expect.poll(() => page.getByRole('article', { name: 'How to install a license' }).textContent()).toContain('no license is installed')
      await importFile('lectern-libraries.zip', false)
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('Library import needs a valid offline license: no license is installed')
      expect(await page.getByRole('article', { name: 'How to install a license' }).textContent()).toContain('lectern license install')
      expect((await fetch(`${server.url}/api/v2/libs/search?libraryName=widgets`)).status).toBe(404)
      expect(watched.problems.filter((p) => !p.includes('status of 403'))).toEqual([])
      watched.problems.length = 0
    })

    it('imports the cloud bundle, skips existing libraries without overwrite, and overwrites with it', async () => {
      const licenseFile = path.join(work, 'license.json')
      fs.writeFileSync(licenseFile, JSON.stringify(offlineLicense(keys.privateKey)))
      // The license is read on every import: installing it needs no restart.
      fs.copyFileSync(licenseFile, path.join(dataDir, 'license.json'))

      await importFile('lectern-libraries.zip', false)
      await expect.poll(() => page.getByRole('status', { name: 'Import result' }).isVisible()).toBe(true)
      expect(await listed('Queued libraries')).toEqual(['/acme/widgets', '/acme/gadgets'])
      expect(await page.getByRole('link', { name: '/acme/widgets' }).getAttribute('href')).toBe('/libraries/acme/widgets')
      expect(await page.getByRole('status', { name: 'Import result' }).getByRole('link', { name: 'Parse Queue' }).getAttribute('href')).toBe('/queue')
      expect(await page.getByRole('alert').count()).toBe(0)
      expect(await page.getByRole('article', { name: 'How to install a license' }).count()).toBe(0)
      await screenshot(page, 'import')
      await finalized('/acme/widgets')
      await finalized('/acme/gadgets')

      await importFile('lectern-libraries.zip', false)
      await expect.poll(() => listed('Skipped libraries').catch(() => [])).toEqual([
        '/acme/widgets: already exists (import with force to overwrite)',
        '/acme/gadgets: already exists (import with force to overwrite)',
      ])
      expect(await page.getByRole('list', { name: 'Queued libraries' }).count()).toBe(0)

      await importFile('widgets.json', true)
      await expect.poll(() => listed('Queued libraries').catch(() => [])).toEqual(['/acme/widgets'])
      expect(await page.getByRole('list', { name: 'Skipped libraries' }).count()).toBe(0)
      await finalized('/acme/widgets')
      expect(watched.problems).toEqual([])
    }, 300_000)

    it('a file that is no bundle gets the API refusal, and nothing is imported', async () => {
      fs.writeFileSync(path.join(work, 'notes.zip'), 'not a zip')
      await importFile('notes.zip', true)
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('The bundle was rejected')
      expect(await page.getByRole('status', { name: 'Import result' }).count()).toBe(0)
      expect(watched.problems.filter((p) => !p.includes('status of 400'))).toEqual([])
    })

    it("offers no Add version on an imported library's page, and says why", async () => {
      await page.goto(`${server.url}/libraries/acme/widgets`)
      const versions = page.getByRole('region', { name: 'Versions' })
      await expect.poll(() => versions.textContent()).toContain('Imported libraries have no source here to add a version from')
      expect(await versions.getByRole('button', { name: 'Add version' }).count()).toBe(0)
      expect(await versions.getByRole('textbox').count()).toBe(0)
      expect(watched.problems).toEqual([])
    })
  })

  describe('cloud: export', () => {
    let watched: WatchedPage
    let page: Page

    beforeAll(async () => {
      const server = await startServer(cloudDir, {}, teardown, { args: ['--mode', 'cloud', '--workers', '1'] })
      watched = await openPage(server.url, teardown)
      page = watched.page
    }, 90_000)

    it('selects public libraries, refuses the 51st, and downloads their bundle', async () => {
      await signIn(page, '/transfer')
      await expect.poll(() => page.getByRole('checkbox', { name: /\/acme\/widgets/ }).isVisible()).toBe(true)
      // Private libraries are not offered.
      expect(await page.getByRole('checkbox', { name: /\/acme\/secret/ }).count()).toBe(0)
      await page.getByLabel('Search public libraries').fill('acme')
      await expect.poll(() => page.getByRole('checkbox').count()).toBe(2)
      await page.getByRole('checkbox', { name: /\/acme\/widgets/ }).check()
      await page.getByRole('checkbox', { name: /\/acme\/gadgets/ }).check()
      await expect.poll(() => page.getByRole('status', { name: 'Selected libraries' }).textContent()).toBe('2 of 50 selected: /acme/widgets, /acme/gadgets')

      const downloading = page.waitForEvent('download')
      await page.getByRole('button', { name: 'Download lectern-libraries.zip' }).click()
      const download = await downloading
      expect(download.suggestedFilename()).toBe('lectern-libraries.zip')
      const entries = await zipEntries((await download.path())!)
      expect([...entries.keys()]).toEqual(['manifest.json', 'libraries/0001.json', 'libraries/0002.json'])
      const manifest = JSON.parse(entries.get('manifest.json')!)
      expect(manifest).toMatchObject({ format: 'lectern-libraries', version: 1 })
      expect(manifest.libraries.map((l: { project: string }) => l.project)).toEqual(['/acme/widgets', '/acme/gadgets'])
      const widgets = JSON.parse(entries.get('libraries/0001.json')!)
      expect(widgets.project).toBe('/acme/widgets')
      expect(widgets.codeSnippets.length + widgets.infoSnippets.length).toBe(manifest.libraries[0].codeSnippets + manifest.libraries[0].infoSnippets)
      expect(widgets.codeSnippets.length).toBeGreaterThan(0)
      await expect.poll(() => page.getByText('Downloaded lectern-libraries.zip with 2 libraries.').isVisible()).toBe(true)

      // 48 more make 50; the 51st is refused in the page.
      await page.getByLabel('Search public libraries').fill('bulk')
      await expect.poll(() => page.getByRole('checkbox').count()).toBe(50)
      for (let i = 1; i <= 48; i++) await page.getByRole('checkbox', { name: new RegExp(`/bulk/lib${String(i).padStart(2, '0')}`) }).check()
      await expect.poll(() => page.getByRole('status', { name: 'Selected libraries' }).textContent()).toMatch(/^50 of 50 selected/)
      await page.getByRole('checkbox', { name: /\/bulk\/lib49/ }).click()
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('A bundle holds at most 50 libraries; /bulk/lib49 was not added')
      expect(await page.getByRole('checkbox', { name: /\/bulk\/lib49/ }).isChecked()).toBe(false)
      expect(await page.getByRole('status', { name: 'Selected libraries' }).textContent()).toMatch(/^50 of 50 selected/)
      await screenshot(page, 'export')
      expect(watched.problems).toEqual([])
    })
  })
})
