/**
 * The Settings page's GitOps section in Chromium against a real `lectern serve` and a real git
 * server holding the manifest: saving the configuration, a dry run's plan, a sync that adds the
 * library, and an invalid manifest's refusal shown on the page with nothing changed.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { openPage, screenshot, unlabelledControls } from '../helpers/browser.js'
import { createAdmin, signIn } from '../helpers/dashboard-admin.js'
import { git, makeGitRepo } from '../helpers/git.js'
import { startGitServer, type GitServer } from '../helpers/git-server.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

let server: ServerProcess
let gitServer: GitServer
let manifestDir: string

describe('the GitOps section of Settings', () => {
  const teardown = suiteTeardown()
  beforeAll(async () => {
    const root = await tmpDir('lectern-gitops-ui-', teardown)
    await makeGitRepo({ 'docs/guide.md': '# Widgets\n\n## Draw\n\nDraw a widget.\n\n```js\ndrawWidget()\n```\n' }, { parent: path.join(root, 'acme'), name: 'widgets', defer: teardown })
    gitServer = await startGitServer(root, { defer: teardown })
    manifestDir = (await makeGitRepo({ 'repos.yaml': `repos:\n  - url: ${gitServer.url}/acme/widgets\n` }, { parent: path.join(root, 'ops'), name: 'sources', defer: teardown })).dir
    const dataDir = await tmpDataDir(teardown)
    await createAdmin(dataDir)
    server = await startServer(dataDir, {}, teardown, { args: ['--workers', '1'] })
  }, 90_000)

  it('saves the manifest repository, shows the plan, syncs, and shows why an invalid manifest changed nothing', async () => {
    const { page, problems } = await openPage(server.url)
    await signIn(page, '/settings')
    const form = page.getByRole('form', { name: 'GitOps' })
    await form.getByLabel('Manifest repository URL').fill(`${gitServer.url}/ops/sources`)
    await form.getByLabel('Sync schedule (UTC)').fill('hourly')
    await form.getByRole('button', { name: 'Save GitOps' }).click()
    await expect.poll(() => form.getByRole('alert').textContent()).toContain('hourly')
    await form.getByLabel('Sync schedule (UTC)').fill('daily')
    await form.getByRole('button', { name: 'Save GitOps' }).click()
    const section = page.getByRole('region', { name: 'GitOps' })
    await expect.poll(() => section.getByRole('button', { name: 'Dry run' }).isEnabled()).toBe(true)

    await section.getByRole('button', { name: 'Dry run' }).click()
    const result = section.getByRole('region', { name: 'Sync result' })
    await expect.poll(() => result.textContent()).toMatch(/Dry run.*1 created[\s\S]*create\s*\/acme\/widgets\s*git/)
    await section.getByRole('button', { name: 'Sync now' }).click()
    await expect.poll(() => result.textContent()).toMatch(/Last sync \(manual\).*1 created/)
    await expect.poll(() => section.textContent()).toContain('Libraries GitOps manages: /acme/widgets.')
    expect(await unlabelledControls(page)).toEqual([])
    await screenshot(page, 'settings-gitops')

    await writeFile(path.join(manifestDir, 'repos.yaml'), 'repos:\n  - url: https://docs.example.com/\n    type: website\n    depth: 2\n')
    await git(['commit', '-qam', 'typo'], manifestDir)
    await section.getByRole('button', { name: 'Sync now' }).click()
    await expect.poll(() => section.getByRole('alert').textContent()).toContain('repos[0]: "depth" is not a field of this type')
    expect((await (await page.request.get('/api/gitops/status')).json()).managed).toEqual([{ libraryId: '/acme/widgets', syncedAt: expect.any(String) }])
    expect(problems).toEqual([])
  }, 60_000)
})
