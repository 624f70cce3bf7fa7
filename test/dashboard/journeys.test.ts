/**
 * The operator's journeys, in Debian's Chromium against a real `lectern serve` (two worker
 * processes, its real job worker, real git): first-run setup, adding a git library and watching
 * it finalize in the Parse Queue, asking it a question, creating and revoking a key, changing the
 * password and signing in again. Each step checks that the browser saw no CSP violation and no
 * script error.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { openPage, screenshot, unlabelledControls, type WatchedPage } from '../helpers/browser.js'
import type { InPage } from '../helpers/in-page.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

const EMAIL = 'ops@example.com'
const PASSWORD = 'correct horse battery'
const NEW_PASSWORD = 'staple battery horse correct'

const WIDGETS = {
  'README.md': '# Widgets\n\nWidgets draws widgets on a canvas.\n',
  'docs/guide.md':
    '# Guide\n\n## Draw a widget\n\nCreate a canvas, then call drawWidget with its size.\n\n```js\nimport { drawWidget } from "widgets"\n\ndrawWidget(canvas, { width: 120, height: 80 })\n```\n\n## Remove a widget\n\nCall removeWidget with the widget.\n\n```js\nremoveWidget(widget)\n```\n',
}

let server: ServerProcess
let dataDir: string
let watched: WatchedPage
let page: Page

const settle = () => expect(watched.problems, 'CSP violations or script errors in the browser').toEqual([])

describe('the dashboard, as an operator uses it', () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    const repos = await tmpDir('lectern-repos-', teardown)
    await makeGitRepo(WIDGETS, { parent: repos, name: 'widgets' })
    dataDir = await tmpDataDir(teardown)
    server = await startServer(dataDir, gitRedirectEnv(repos), teardown, { args: ['--workers', '2'] })
    watched = await openPage(server.url, teardown)
    page = watched.page
  }, 90_000)

  it('first run: the setup page creates the first admin with the token the server wrote', async () => {
    await page.goto('/')
    await expect.poll(() => page.getByRole('heading', { name: 'Welcome to Lectern' }).isVisible()).toBe(true)
    await screenshot(page, 'setup')
    await page.getByLabel('Setup token').fill('wrong-token')
    await page.getByLabel('Email', { exact: true }).fill(EMAIL)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Password again').fill(PASSWORD)
    await page.getByRole('button', { name: 'Create the admin' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The setup token is wrong')

    const token = (await readFile(path.join(dataDir, 'setup-token'), 'utf8')).trim()
    await page.getByLabel('Setup token').fill(token)
    await page.getByRole('button', { name: 'Create the admin' }).click()
    await expect.poll(() => page.getByRole('heading', { name: 'Libraries' }).isVisible()).toBe(true)
    await expect.poll(() => page.getByText('No libraries yet').isVisible()).toBe(true)
    // At / the Libraries page shows, and the navigation says so.
    expect(await page.getByRole('link', { name: 'Libraries', exact: true }).getAttribute('aria-current')).toBe('page')
    settle()
  })

  it('adds a git library and watches it finalize in the Parse Queue', async () => {
    await page.getByText('Add a library').click()
    await page.getByLabel('URL', { exact: true }).fill('https://github.com/acme/widgets')
    await page.getByRole('button', { name: 'Add', exact: true }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Queued /acme/widgets')
    await page.getByRole('link', { name: 'Parse Queue' }).first().click()
    await expect.poll(() => page.getByRole('heading', { name: 'Parse Queue' }).isVisible()).toBe(true)
    // The job runs, then shows among the recently ended with its log lines.
    await expect.poll(() => page.locator('details.job-succeeded').first().textContent(), { timeout: 30_000 }).toContain('/acme/widgets')
    await page.locator('details.job-succeeded summary').first().click()
    await expect.poll(() => page.getByLabel(/Log of job/).first().textContent()).toContain('job succeeded')
    await screenshot(page, 'queue')
    await page.getByRole('link', { name: 'Libraries' }).first().click()
    await expect.poll(() => page.getByRole('row', { name: /\/acme\/widgets/ }).textContent()).toContain('ready')
    await screenshot(page, 'libraries')
    settle()
  }, 60_000)

  it('asks the library a question and shows the answer as tools get it, and ranked', async () => {
    await page.getByRole('link', { name: '/acme/widgets' }).click()
    await page.getByLabel('Question').fill('how do I draw a widget')
    await page.getByRole('button', { name: 'Ask' }).click()
    await expect.poll(() => page.getByTestId('answer-txt').textContent()).toContain('drawWidget(canvas, { width: 120, height: 80 })')
    // The txt pane is byte for byte what an AI tool receives.
    const txt = await (await fetch(`${server.url}/api/v2/context?libraryId=/acme/widgets&query=how+do+I+draw+a+widget&type=txt`)).text()
    expect(await page.getByTestId('answer-txt').textContent()).toBe(txt)
    await page.getByRole('tab', { name: /Ranked snippets/ }).click()
    const first = page.getByTestId('answer-json').getByRole('row').nth(1)
    await expect.poll(() => first.textContent()).toMatch(/^1Draw a widget/)
    await screenshot(page, 'try-it')

    // Browsing by page shows what Lectern made of each page of the docs.
    const guide = page.getByRole('option', { name: 'docs/guide.md (2)' })
    await page.getByLabel('Page of the docs').selectOption((await guide.getAttribute('value'))!)
    await expect.poll(() => page.getByRole('article', { name: 'Remove a widget' }).textContent()).toContain('removeWidget(widget)')
    settle()
  })

  it('creates a key, shown once, that works as a Bearer token until it is revoked', async () => {
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Name of the new key').fill('cursor-laptop')
    await page.getByRole('button', { name: 'Create key' }).click()
    const key = await page.getByTestId('new-key').inputValue()
    expect(key).toMatch(/^lct_[A-Za-z0-9]{32,}$/)
    await page.getByRole('button', { name: 'Copy' }).click()
    expect(await page.evaluate(() => (globalThis as unknown as InPage).navigator.clipboard.readText())).toBe(key)
    const ask = () => fetch(`${server.url}/api/v2/context?libraryId=/acme/widgets&query=widget`, { headers: { authorization: `Bearer ${key}` } })
    expect((await ask()).status).toBe(200)
    await expect.poll(() => page.getByRole('row', { name: /cursor-laptop/ }).textContent()).toContain(key.slice(0, 8))
    await screenshot(page, 'keys')

    await page.getByRole('button', { name: 'Revoke key cursor-laptop' }).click()
    await page.getByRole('button', { name: 'Revoke cursor-laptop now' }).click()
    await expect.poll(() => page.getByText('No keys yet').isVisible()).toBe(true)
    // Revoked in every worker process: each new connection may land on either.
    for (let i = 0; i < 4; i++) expect((await ask()).status).toBe(401)
    settle()
  })

  it('changes the password, signs out, and signs in with the new one only', async () => {
    await page.getByRole('link', { name: 'Account' }).click()
    await page.getByLabel('Current password').fill(PASSWORD)
    await page.getByLabel('New password').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Password changed')
    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in to Lectern' }).isVisible()).toBe(true)

    await page.getByLabel('Email', { exact: true }).fill(EMAIL)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong email or password')
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('heading', { name: 'Libraries' }).isVisible()).toBe(true)
    settle()
  })

  it('names every control on every page, and signs in with the keyboard alone', async () => {
    for (const link of ['Libraries', 'Parse Queue', 'API keys', 'Usage', 'Import/export', 'Backups', 'Settings', 'Account']) {
      await page.getByRole('link', { name: link, exact: true }).click()
      await expect.poll(() => page.getByRole('heading', { level: 1 }).first().isVisible()).toBe(true)
      expect(await unlabelledControls(page), link).toEqual([])
    }
    // The questions asked on the library page count as the dashboard's in Usage (counts are written every few seconds).
    await page.getByRole('link', { name: 'Usage', exact: true }).click()
    await expect
      .poll(async () => {
        await page.reload()
        return page.getByRole('row', { name: /\/acme\/widgets/ }).textContent()
      }, { timeout: 20_000, interval: 1000 })
      .toMatch(/dashboard \d+/)
    await page.getByRole('link', { name: 'Libraries', exact: true }).click()
    await page.getByRole('link', { name: '/acme/widgets' }).click()
    await expect.poll(() => page.getByRole('heading', { name: 'Try it' }).isVisible()).toBe(true)
    expect(await unlabelledControls(page), 'the library page').toEqual([])

    // The session ends elsewhere (signed out in another tab): the next action shows sign-in, not an API error.
    const session = (await page.context().cookies()).find((c) => c.name === 'lectern_session')!
    await fetch(`${server.url}/api/auth/logout`, { method: 'POST', headers: { cookie: `lectern_session=${session.value}` } })
    await page.getByRole('link', { name: 'API keys', exact: true }).click()
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in to Lectern' }).isVisible()).toBe(true)
    expect(await unlabelledControls(page), 'sign-in').toEqual([])
    await page.getByLabel('Email', { exact: true }).focus()
    await page.keyboard.type(EMAIL)
    await page.keyboard.press('Tab')
    await page.keyboard.type(NEW_PASSWORD)
    await page.keyboard.press('Enter')
    // Back where the operator was when the session ended.
    await expect.poll(() => page.getByRole('heading', { name: 'API keys' }).isVisible()).toBe(true)
    settle()
  })
})
