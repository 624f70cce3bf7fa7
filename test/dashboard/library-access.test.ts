/**
 * The Settings page's Library access section in Chromium against a real `lectern serve`:
 * restricting a library to a user closes it to a key without an owner and opens it to that user's
 * key; an unknown user is refused and nothing changes; the default switch restricts the libraries
 * nobody configured; a namespace rule with users and groups governs the libraries under it that
 * have no rule of their own, a bad namespace is refused, and removing the rule reopens them.
 */
import { execa } from 'execa'
import { beforeAll, describe, expect, it } from 'vitest'
import { openPage, screenshot, unlabelledControls, type WatchedPage } from '../helpers/browser.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { createAdmin, signIn } from '../helpers/dashboard-admin.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

let server: ServerProcess
let dataDir: string
let watched: WatchedPage
let aliceKey: string
let installKey: string

const lectern = (args: string[], input?: string) => execa(process.execPath, ['bin/run.js', ...args, '--data-dir', dataDir], { cwd: PROJECT_ROOT, ...(input ? { input } : {}) })
const contextStatus = async (key: string, id: string) =>
  (await fetch(`${server.url}/api/v2/context?libraryId=${id}&query=draw+a+widget`, { headers: { authorization: `Bearer ${key}` } })).status

describe('the Library access section of Settings', () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    const repos = await tmpDir('lectern-repos-', teardown)
    await makeGitRepo({ 'docs/guide.md': '# Guide\n\n## Draw\n\nDraw a widget.\n\n```js\ndrawWidget()\n```\n' }, { parent: repos, name: 'widgets' })
    await makeGitRepo({ 'docs/guide.md': '# Gadgets\n\n## Draw\n\nDraw a gadget.\n\n```js\ndrawGadget()\n```\n' }, { parent: repos, name: 'gadgets' })
    dataDir = await tmpDataDir(teardown)
    await createAdmin(dataDir)
    await lectern(['users', 'create', 'alice@example.com'], 'correct horse battery staple\n')
    aliceKey = (await lectern(['keys', 'create', '--name', 'alice', '--user', 'alice@example.com'])).stdout.trim()
    installKey = (await lectern(['keys', 'create', '--name', 'ci'])).stdout.trim()
    server = await startServer(dataDir, gitRedirectEnv(repos), teardown, { args: ['--workers', '1'] })
    await lectern(['add', 'https://github.com/acme/widgets', '--wait'])
    await lectern(['add', 'https://github.com/acme/gadgets', '--wait'])
    watched = await openPage(server.url, teardown)
  }, 90_000)

  it('restricts a library to a user, refuses an unknown one, and restricts by default', async () => {
    const { page } = watched
    await signIn(page, '/settings')
    const section = page.getByRole('region', { name: 'Library access' })
    const row = (id: string) => section.getByRole('row').filter({ hasText: id })
    await expect.poll(() => row('/acme/widgets').textContent()).toMatch(/Everyone\s*default.*Anyone, with or without a key/)
    expect(await contextStatus(installKey, '/acme/widgets')).toBe(200)

    await section.getByRole('button', { name: 'Edit access to /acme/widgets' }).click()
    const editor = section.getByRole('form', { name: 'Access to /acme/widgets' })
    await editor.getByLabel('Restricted').check()
    await editor.getByLabel('Users granted (emails)').fill('alice@example.com, zed@example.com')
    await editor.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => editor.getByRole('alert').textContent()).toContain('zed@example.com')
    expect(await contextStatus(installKey, '/acme/widgets')).toBe(200)

    await editor.getByLabel('Users granted (emails)').fill('alice@example.com')
    await editor.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => row('/acme/widgets').textContent()).toMatch(/Restricted.*alice@example.com/)
    expect(await contextStatus(installKey, '/acme/widgets')).toBe(404)
    expect(await contextStatus(aliceKey, '/acme/widgets')).toBe(200)

    await section.getByRole('switch', { name: 'Restrict libraries by default' }).check()
    await expect.poll(() => row('/acme/gadgets').textContent()).toMatch(/Restricted\s*default.*Admins only/)
    expect(await contextStatus(installKey, '/acme/gadgets')).toBe(404)
    expect(JSON.parse((await lectern(['libraries', 'access', '--json'])).stdout).restrictNewLibraries).toBe(true)

    await section.getByLabel('Filter libraries by name').fill('gadg')
    await expect.poll(() => section.getByRole('row').count()).toBe(2)
    expect(await unlabelledControls(page)).toEqual([])
    await screenshot(page, 'settings-library-access')
    expect(watched.problems).toEqual([])
  }, 60_000)

  it('sets a namespace rule with users and groups, refuses a bad namespace, and removes the rule', async () => {
    const { page } = watched
    const section = page.getByRole('region', { name: 'Library access' })
    const row = (id: string) => section.getByRole('row').filter({ hasText: id })
    await section.getByLabel('Filter libraries by name').fill('')
    await section.getByRole('switch', { name: 'Restrict libraries by default' }).uncheck()
    await expect.poll(() => row('/acme/gadgets').textContent()).toMatch(/Everyone\s*default/)

    await section.getByRole('button', { name: 'Add a namespace rule' }).click()
    const adding = section.getByRole('form', { name: 'New namespace rule' })
    await adding.getByLabel('Namespace').fill('/acme')
    await adding.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => adding.getByRole('alert').textContent()).toContain('Expected /owner/* or /owner/name/*')
    await adding.getByLabel('Namespace').fill('/acme/*')
    await adding.getByLabel('Users granted (emails)').fill('alice@example.com')
    await adding.getByLabel('Groups granted (single sign-on groups, comma-separated)').fill('gadget makers, platform')
    await adding.getByRole('button', { name: 'Save changes' }).click()
    const rules = section.getByRole('table', { name: 'Namespace rules' })
    await expect.poll(() => rules.getByRole('row').filter({ hasText: '/acme/*' }).textContent()).toMatch(/Restricted.*alice@example.com, group gadget makers, group platform\s*1/)
    // /acme/widgets keeps its own rule; /acme/gadgets, without one, follows the namespace.
    await expect.poll(() => row('/acme/gadgets').textContent()).toMatch(/Restricted\s*\/acme\/\*.*alice@example.com, group gadget makers/)
    expect(await contextStatus(installKey, '/acme/gadgets')).toBe(404)
    expect(await contextStatus(aliceKey, '/acme/gadgets')).toBe(200)
    expect(JSON.parse((await lectern(['libraries', 'access', '/acme/*', '--json'])).stdout)).toMatchObject({ access: 'restricted', groups: ['gadget makers', 'platform'] })
    expect(await unlabelledControls(page)).toEqual([])
    await screenshot(page, 'settings-library-access-namespaces')

    await rules.getByRole('button', { name: 'Edit access to /acme/*' }).click()
    const editing = section.getByRole('form', { name: 'Access to /acme/*' })
    await editing.getByLabel('No rule (remove it)').check()
    await editing.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => row('/acme/gadgets').textContent()).toMatch(/Everyone\s*default/)
    expect(await rules.count()).toBe(0)
    expect(await contextStatus(installKey, '/acme/gadgets')).toBe(200)
    expect(watched.problems).toEqual([])
  }, 60_000)
})
