/**
 * The Audit log page in Chromium against a real `lectern serve`: a failed and a successful sign-in
 * and a key created and revoked on the Keys page, beside older events seeded in the store, shown
 * with actor, address and target (times in the viewer's locale and time zone); the filters (action
 * group, outcome, since, actor, target), paging through older events, the JSON-lines export of the
 * filtered events, the API's refusal of a bad "since", and a member who gets neither the page nor
 * the API.
 */
import { readFile } from 'node:fs/promises'
import { execa } from 'execa'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AuditEvent } from '../../src/store/audit.js'
import { openStore } from '../../src/store/index.js'
import { openPage, screenshot, unlabelledControls, type WatchedPage } from '../helpers/browser.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { ADMIN_EMAIL, createAdmin, signIn } from '../helpers/dashboard-admin.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir } from '../helpers/tmp.js'

const MEMBER = 'bob@example.com'
const MEMBER_PASSWORD = 'correct horse battery staple'
const DAY_MS = 24 * 60 * 60 * 1000
/** The viewer's locale and time zone, set in the browser: the page's times must follow them. */
const LOCALE = 'en-US'
const TIME_ZONE = 'Asia/Kolkata'
/** Seeded `settings.changed` events, 3 days old, their `value` 100 (oldest) to 111 (newest). */
const SETTINGS_EVENTS = 12

let server: ServerProcess
let dataDir: string
let watched: WatchedPage
let page: Page

const table = () => page.getByRole('table', { name: 'Audit events' })
/** Each row of the table as its cells' text. */
const rows = async (): Promise<string[][]> => Promise.all((await table().locator('tbody tr').all()).map((row) => row.getByRole('cell').allTextContents()))
const column = async (index: number): Promise<string[]> => (await rows()).map((cells) => cells[index]!)
const actions = () => column(1)
/** What the API answers the admin's session, the page's own source. */
const apiEvents = async (search = ''): Promise<AuditEvent[]> => {
  const answer = await page.request.get(`/api/audit?limit=500${search}`)
  expect(answer.status()).toBe(200)
  return ((await answer.json()) as { events: AuditEvent[] }).events
}

describe('the Audit log page', () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    dataDir = await tmpDataDir(teardown)
    // Older events first (the log lists by insertion, newest first): a blocked attempt 40 days
    // ago, a backup 10 days ago, and settings changed by the CLI 3 days ago.
    const store = await openStore(dataDir)
    try {
      const now = Date.now()
      await store.audit.record(
        { action: 'access.blocked', outcome: 'blocked', actor: { kind: 'api-key', name: `${MEMBER} (key 7)` }, address: '203.0.113.9', target: '/acme/secret', details: { route: 'GET /api/v2/context', answered: 'library_not_found' } },
        new Date(now - 40 * DAY_MS),
      )
      await store.audit.record(
        { action: 'backup.created', outcome: 'success', actor: { kind: 'system', name: null }, address: null, target: 'lectern-backup-1.tar.gz', details: { destination: 'dir:/srv/backups', size: 2048 } },
        new Date(now - 10 * DAY_MS),
      )
      for (let i = 0; i < SETTINGS_EVENTS; i++) {
        await store.audit.record(
          { action: 'settings.changed', outcome: 'success', actor: { kind: 'cli', name: 'deploy-bot' }, address: null, target: 'rateLimit.keyed', details: { value: 100 + i } },
          new Date(now - 3 * DAY_MS + i * 60_000),
        )
      }
    } finally {
      await store.close()
    }
    await createAdmin(dataDir)
    await execa(process.execPath, ['bin/run.js', 'users', 'create', MEMBER, '--data-dir', dataDir], { cwd: PROJECT_ROOT, input: `${MEMBER_PASSWORD}\n` })
    server = await startServer(dataDir, {}, teardown, { args: ['--workers', '1'] })
    watched = await openPage(server.url, teardown)
    page = watched.page
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Emulation.setLocaleOverride', { locale: LOCALE })
    await cdp.send('Emulation.setTimezoneOverride', { timezoneId: TIME_ZONE })
  }, 90_000)

  it('shows a failed sign-in, the sign-in and a key created and revoked, opened from the nav', async () => {
    await page.goto('/')
    await page.getByLabel('Email', { exact: true }).fill(ADMIN_EMAIL)
    await page.getByLabel('Password', { exact: true }).fill('not the password at all')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').isVisible()).toBe(true)
    await signIn(page, '/keys')
    await page.getByLabel('Name of the new key').fill('ci-runner')
    await page.getByRole('button', { name: 'Create key' }).click()
    await expect.poll(() => page.getByTestId('new-key').inputValue()).toMatch(/^lct_/)
    await page.getByRole('button', { name: 'Revoke key ci-runner' }).click()
    await page.getByRole('button', { name: 'Revoke ci-runner now' }).click()
    await expect.poll(() => page.getByText('No keys yet.').isVisible()).toBe(true)

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
    await expect.poll(() => page.getByRole('heading', { name: 'Audit log' }).isVisible()).toBe(true)
    expect(new URL(page.url()).pathname).toBe('/audit')
    expect(await page.getByRole('link', { name: 'Audit log' }).getAttribute('aria-current')).toBe('page')
    const [revoked] = await apiEvents('&action=key.revoked')
    const keyTarget = revoked!.target!
    expect(keyTarget).toMatch(/^key \d+ "ci-runner"$/)
    await expect.poll(() => actions()).toEqual([
      'key.revoked',
      'key.created',
      'signin.succeeded',
      'signin.failed',
      'user.created',
      'user.created',
      ...Array<string>(SETTINGS_EVENTS).fill('settings.changed'),
      'backup.created',
      'access.blocked',
    ])
    const all = await rows()
    // Time, action, outcome, actor (name, then kind), address, target, details.
    expect(all[0]!.slice(1)).toEqual(['key.revoked', 'success', `${ADMIN_EMAIL}signed-in user`, '127.0.0.1', keyTarget, `owner=${ADMIN_EMAIL}`])
    expect(all[1]!.slice(1)).toEqual(['key.created', 'success', `${ADMIN_EMAIL}signed-in user`, '127.0.0.1', keyTarget, `owner=${ADMIN_EMAIL}`])
    expect(all[2]!.slice(1)).toEqual(['signin.succeeded', 'success', `${ADMIN_EMAIL}signed-in user`, '127.0.0.1', ADMIN_EMAIL, 'method=password'])
    expect(all[3]!.slice(1)).toEqual(['signin.failed', 'failure', '—anonymous', '127.0.0.1', ADMIN_EMAIL, 'method=password'])
    expect(all[4]![3]).toMatch(/command line$/)
    expect(all.at(-2)!.slice(1)).toEqual(['backup.created', 'success', '—Lectern', '—', 'lectern-backup-1.tar.gz', 'destination=dir:/srv/backups size=2048'])
    expect(all.at(-1)!.slice(1)).toEqual([
      'access.blocked',
      'blocked',
      `${MEMBER} (key 7)API key`,
      '203.0.113.9',
      '/acme/secret',
      'route=GET /api/v2/context answered=library_not_found',
    ])
    // Each outcome has its badge's colour; each fact of the details its own chip.
    const badge = (n: number) => table().locator('tbody tr').nth(n).locator('.badge')
    expect(await badge(0).getAttribute('class')).toBe('badge state-finalized')
    expect(await badge(3).getAttribute('class')).toBe('badge state-error')
    expect(await badge(all.length - 1).getAttribute('class')).toBe('badge state-warning')
    expect(await table().locator('tbody tr').last().locator('td.details code').allTextContents()).toEqual(['route=GET /api/v2/context', 'answered=library_not_found'])

    // The time in the viewer's locale and zone, UTC on hover, the exact instant in `datetime`.
    const time = table().locator('tbody tr').nth(2).locator('time')
    const at = (await apiEvents('&action=signin.succeeded'))[0]!.at
    expect(await time.getAttribute('datetime')).toBe(at)
    const shown = (timeZone: string) =>
      new Date(at).toLocaleDateString(LOCALE, { year: 'numeric', month: 'short', day: 'numeric', timeZone }) +
      new Date(at).toLocaleTimeString(LOCALE, { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone })
    expect(await time.textContent()).toBe(shown(TIME_ZONE))
    expect(await time.textContent()).not.toBe(shown('UTC'))
    expect(await time.getAttribute('title')).toBe(`${at.slice(0, 10)} ${at.slice(11, 19)} UTC`)
    // The action's meaning on hover.
    expect(await table().getByText('key.revoked').getAttribute('title')).toBe('an API key was revoked')
    expect(await unlabelledControls(page)).toEqual([])
    await screenshot(page, 'audit')
    expect(watched.problems).toEqual([])
  }, 60_000)

  it('filters by action group, outcome, age, actor and target', async () => {
    const action = page.getByLabel('Action', { exact: true })
    const outcome = page.getByLabel('Outcome', { exact: true })
    const since = page.getByLabel('Since', { exact: true })

    await action.selectOption('key')
    await expect.poll(() => actions()).toEqual(['key.revoked', 'key.created'])
    await action.selectOption('signin')
    await expect.poll(() => actions()).toEqual(['signin.succeeded', 'signin.failed'])
    await action.selectOption('')

    await outcome.selectOption('failure')
    await expect.poll(() => actions()).toEqual(['signin.failed'])
    expect((await rows())[0]!.slice(3, 6)).toEqual(['—anonymous', '127.0.0.1', ADMIN_EMAIL])
    await outcome.selectOption('blocked')
    await expect.poll(() => actions()).toEqual(['access.blocked'])
    await outcome.selectOption('')

    await since.selectOption('7d')
    await expect.poll(async () => (await actions()).length).toBe(6 + SETTINGS_EVENTS)
    expect(await actions()).not.toContain('backup.created')
    await since.selectOption('30d')
    await expect.poll(() => actions()).toContain('backup.created')
    expect(await actions()).not.toContain('access.blocked')
    await since.selectOption('24h')
    await expect.poll(() => actions()).toEqual(['key.revoked', 'key.created', 'signin.succeeded', 'signin.failed', 'user.created', 'user.created'])
    await since.selectOption('')

    // Typed filters apply with Enter (or "Apply filters").
    await page.getByLabel('Actor', { exact: true }).fill('deploy')
    await page.getByLabel('Actor', { exact: true }).press('Enter')
    await expect.poll(() => actions()).toEqual(Array<string>(SETTINGS_EVENTS).fill('settings.changed'))
    await page.getByLabel('Actor', { exact: true }).fill('')
    await page.getByLabel('Target', { exact: true }).fill('CI-RUNNER')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await expect.poll(() => actions()).toEqual(['key.revoked', 'key.created'])

    await action.selectOption('backup')
    await expect.poll(() => page.getByText('No event matches these filters.').isVisible()).toBe(true)
    expect(await table().count()).toBe(0)
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await expect.poll(async () => (await actions()).length).toBe(8 + SETTINGS_EVENTS)
    expect(await page.getByLabel('Target', { exact: true }).inputValue()).toBe('')
    expect(await action.inputValue()).toBe('')
    expect(watched.problems).toEqual([])
  }, 60_000)

  it('pages through older events', async () => {
    await page.getByLabel('Action', { exact: true }).selectOption('settings')
    await page.getByLabel('Per page', { exact: true }).selectOption('10')
    const values = async () => (await column(6)).map((details) => Number(details.replace('value=', '')))
    await expect.poll(() => values()).toEqual([111, 110, 109, 108, 107, 106, 105, 104, 103, 102])
    const pages = page.getByRole('navigation', { name: 'Pages' })
    expect(await pages.getByRole('button', { name: 'Newer events' }).isDisabled()).toBe(true)
    await pages.getByRole('button', { name: 'Older events' }).click()
    await expect.poll(() => values()).toEqual([101, 100])
    expect(await pages.getByText('Page 2').isVisible()).toBe(true)
    expect(await pages.getByRole('button', { name: 'Older events' }).isDisabled()).toBe(true)
    await pages.getByRole('button', { name: 'Newer events' }).click()
    await expect.poll(() => values()).toEqual([111, 110, 109, 108, 107, 106, 105, 104, 103, 102])

    // All events, ten a page: together, the API's list in its order.
    await page.getByLabel('Action', { exact: true }).selectOption('')
    const expected = (await apiEvents()).map((event) => [event.at, event.action])
    const seen: string[][] = []
    for (;;) {
      await expect.poll(() => pages.getByText(`Page ${seen.length / 10 + 1}`, { exact: true }).isVisible()).toBe(true)
      await expect.poll(async () => (await table().locator('time').first().getAttribute('datetime')) === expected[seen.length]![0]).toBe(true)
      const times = await table().locator('time').evaluateAll((elements) => elements.map((element) => element.getAttribute('datetime')!))
      seen.push(...(await actions()).map((name, i) => [times[i]!, name]))
      const older = pages.getByRole('button', { name: 'Older events' })
      if (await older.isDisabled()) break
      await older.click()
    }
    expect(seen).toEqual(expected)
    expect(seen.length).toBeGreaterThan(10)
    expect(watched.problems).toEqual([])
  }, 60_000)

  it('exports the filtered events as JSON lines, oldest first', async () => {
    await page.getByLabel('Per page', { exact: true }).selectOption('50')
    await page.getByLabel('Since', { exact: true }).selectOption('7d')
    await page.getByLabel('Action', { exact: true }).selectOption('settings')
    await expect.poll(async () => (await actions()).length).toBe(SETTINGS_EVENTS)
    const link = page.getByRole('link', { name: 'Export JSON lines' })
    expect(new URL((await link.getAttribute('href'))!, server.url).search).toBe('?since=7d&action=settings')
    const today = () => new Date().toISOString().slice(0, 10)
    const before = today()
    const downloading = page.waitForEvent('download')
    await link.click()
    const download = await downloading
    // The server names the file with its date (UTC): either side of a midnight passing now.
    expect([`lectern-audit-${before}.jsonl`, `lectern-audit-${today()}.jsonl`]).toContain(download.suggestedFilename())
    const text = await readFile((await download.path())!, 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    const exported = text.trimEnd().split('\n').map((line) => JSON.parse(line) as AuditEvent)
    expect(exported.map((event) => event.action)).toEqual(Array<string>(SETTINGS_EVENTS).fill('settings.changed'))
    expect(exported.map((event) => event.details.value)).toEqual(Array.from({ length: SETTINGS_EVENTS }, (_, i) => 100 + i))
    expect(exported[0]).toEqual(expect.objectContaining({ outcome: 'success', actor: { kind: 'cli', name: 'deploy-bot' }, address: null, target: 'rateLimit.keyed' }))

    // Another filter, another file: the failed sign-in alone.
    await page.getByLabel('Action', { exact: true }).selectOption('')
    await page.getByLabel('Outcome', { exact: true }).selectOption('failure')
    await expect.poll(() => actions()).toEqual(['signin.failed'])
    const again = page.waitForEvent('download')
    await link.click()
    const failures = (await readFile((await (await again).path())!, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as AuditEvent)
    expect(failures.map((event) => [event.action, event.outcome, event.target])).toEqual([['signin.failed', 'failure', ADMIN_EMAIL]])
    expect(watched.problems).toEqual([])
  }, 60_000)

  it("shows the API's message for a since that is neither an age nor a date", async () => {
    await page.getByLabel('Outcome', { exact: true }).selectOption('')
    await page.getByLabel('Since', { exact: true }).selectOption('other')
    const typed = page.getByLabel('Age or date', { exact: true })
    expect(await typed.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true)
    await typed.fill('yesterday')
    await typed.press('Enter')
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('since must be an age such as 30m, 24h, 7d or 2w, or a date or time such as 2026-12-01')
    expect(await page.getByRole('alert').textContent()).toContain('(code: validation_error)')
    expect(await table().count()).toBe(0)
    expect(await page.getByRole('link', { name: 'Export JSON lines' }).count()).toBe(0)

    await typed.fill('4d')
    await typed.press('Enter')
    await expect.poll(async () => (await actions()).length).toBe(6 + SETTINGS_EVENTS)
    expect(await page.getByRole('alert').count()).toBe(0)
    expect(new URL((await page.getByRole('link', { name: 'Export JSON lines' }).getAttribute('href'))!, server.url).search).toBe('?since=4d')
    expect(watched.problems).toEqual([])
  }, 60_000)

  it('is not a member\'s: no nav entry, no page, and the API refuses', async () => {
    const member = await openPage(server.url)
    await member.page.goto('/audit')
    await member.page.getByLabel('Email', { exact: true }).fill(MEMBER)
    await member.page.getByLabel('Password', { exact: true }).fill(MEMBER_PASSWORD)
    await member.page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => member.page.getByText(`Signed in as ${MEMBER}, who is not an admin`).isVisible()).toBe(true)
    expect(await member.page.getByRole('link', { name: 'Audit log' }).count()).toBe(0)
    expect(await member.page.getByRole('heading', { name: 'Audit log' }).count()).toBe(0)
    expect(await member.page.getByRole('table').count()).toBe(0)
    for (const path of ['/api/audit', '/api/audit/export']) {
      const answer = await member.page.request.get(path)
      expect([path, answer.status(), ((await answer.json()) as { error: string }).error]).toEqual([path, 403, 'forbidden'])
    }
    // The admin's session, on the same server, is answered.
    expect((await page.request.get('/api/audit/export')).status()).toBe(200)
    expect(member.problems).toEqual([])
  }, 60_000)
})
