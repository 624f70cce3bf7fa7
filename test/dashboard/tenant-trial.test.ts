/**
 * What a new tenant met on a trial of the cloud dashboard, in Debian's Chromium against a real
 * HTTP server (buildApp in cloud mode on 127.0.0.1, port 0): a library's metrics only under the
 * teamspace that owns it; the operator's Libraries naming whose private library each is, and the
 * add form saying who sees a private one in the cloud; the invitation page signed out, for an
 * invitee with an account and for a link that no longer works. One server and one browser for the file.
 */
import type { FastifyInstance } from 'fastify'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { sqliteOf } from '../../src/store/index.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { openPage, type WatchedPage } from '../helpers/browser.js'
import { suiteTeardown } from '../helpers/tmp.js'

const PASSWORD = 'a long and varied passphrase'
const ADA = 'ada@example.com'
const OPS = 'ops@example.com'
const DOCS = { 'docs/guide.md': '# Guide\n\n## Start\n\nStart the router.\n\n```js\nrouter.start()\n```\n' }

let app: FastifyInstance
let url: string
let acme: number
let personal: number

const go = (page: Page, path: string) => page.goto(path, { waitUntil: 'networkidle' })
const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 })
const settle = (watched: WatchedPage) => expect(watched.problems, 'CSP violations or script errors in the browser').toEqual([])

async function signedIn(email: string): Promise<WatchedPage> {
  const watched = await openPage(url)
  await go(watched.page, '/')
  await watched.page.getByLabel('Email', { exact: true }).fill(email)
  await watched.page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await watched.page.getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(() => watched.page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true)
  return watched
}

describe('the cloud dashboard on a tenant\'s trial', () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    app = await buildTestApp({ mode: 'cloud', startWorker: false, defer: teardown })
    const { users, teams } = app.runtime.store
    const db = sqliteOf(app.runtime.store)
    await users.create({ email: OPS, password: PASSWORD, role: 'admin' })
    const ada = await users.create({ email: ADA, password: PASSWORD, role: 'member' })
    acme = (await teams.create({ name: 'Acme Docs', ownerUserId: ada.id, plan: 'pro' })).id
    personal = (await teams.personalTeam(ada.id)).id
    const { libraryPk } = await seedLibrary(app, '/acme/billing', DOCS)
    db.prepare('UPDATE libraries SET is_private = 1, team_pk = ? WHERE pk = ?').run(acme, libraryPk)
    await seedLibrary(app, '/public/lib', DOCS)
    url = await app.listen({ port: 0, host: '127.0.0.1' })
  }, 60_000)

  it('shows a library\'s metrics under the teamspace that owns it only, never under another of the member\'s teamspaces', async () => {
    const watched = await signedIn(ADA)
    const { page } = watched
    await go(page, `/teams/${personal}/libraries/acme/billing`)
    await expect.poll(() => heading(page, 'No such library in this teamspace').isVisible()).toBe(true)
    expect(await page.getByText('Requests per day').count()).toBe(0)
    expect(await page.getByLabel('Teamspace', { exact: true }).inputValue()).toBe(String(personal))

    await go(page, `/teams/${acme}/libraries/public/lib`)
    await expect.poll(() => heading(page, 'No such library in this teamspace').isVisible()).toBe(true)

    await go(page, `/teams/${acme}/libraries/acme/billing`)
    await expect.poll(() => heading(page, '/acme/billing').isVisible()).toBe(true)
    await expect.poll(() => page.getByRole('heading', { name: 'Requests per day' }).isVisible()).toBe(true)

    // Switching teamspace on the page re-checks ownership for the new team.
    await page.getByLabel('Teamspace', { exact: true }).selectOption(String(personal))
    await expect.poll(() => new URL(page.url()).pathname).toContain(`/teams/${personal}/`)
    expect(await page.getByRole('heading', { name: 'Requests per day' }).count()).toBe(0)
    settle(watched)
  })

  it('shows the operator whose private library each is, and that in the cloud a private one is the operator\'s alone', async () => {
    const watched = await signedIn(OPS)
    const { page } = watched
    await expect.poll(() => heading(page, 'Libraries').isVisible()).toBe(true)
    const billing = page.getByRole('row', { name: /\/acme\/billing/ })
    await expect.poll(() => billing.getByText('Private to Acme Docs').isVisible()).toBe(true)
    expect(await page.getByRole('row', { name: /\/public\/lib/ }).getByText(/Private/).count()).toBe(0)
    await page.getByText('Add a library').click()
    expect(await page.getByRole('switch', { name: 'Private: only the operator sees it' }).isVisible()).toBe(true)
    await page.getByRole('link', { name: '/acme/billing' }).click()
    await expect.poll(() => page.getByText('Private to Acme Docs').isVisible()).toBe(true)
    settle(watched)
  })

  it('names the invitation signed out, and lets an invitee with an account sign in as the invited address and land in the team', async () => {
    const { users, teams, invitations } = app.runtime.store
    const bea = await users.create({ email: 'bea@example.com', password: PASSWORD, role: 'member' })
    const { token } = await invitations.upsert({ teamId: acme, email: 'bea@example.com', role: 'admin', invitedBy: (await users.byEmail(ADA))!.id, ttlMs: 3_600_000 })
    const watched = await openPage(url)
    const { page } = watched
    await go(page, `/invitations#token=${token}`)
    await expect.poll(() => page.getByText('You are invited to Acme Docs as admin (bea@example.com).').isVisible()).toBe(true)
    expect(await page.locator('form').count()).toBe(0)
    await page.getByLabel('I have an account').check()
    await expect.poll(() => page.getByRole('heading', { name: 'Sign in as bea@example.com', level: 2 }).isVisible()).toBe(true)
    expect(await page.getByRole('button', { name: 'Create the account' }).count()).toBe(0)
    const email = page.getByLabel('Email', { exact: true })
    expect([await email.inputValue(), await email.isEditable()]).toEqual(['bea@example.com', false])
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    // Signing in as the invited (confirmed) address joins at once: the page goes to the team.
    await expect.poll(() => heading(page, 'Acme Docs').isVisible()).toBe(true)
    expect(new URL(page.url()).pathname).toBe(`/teams/${acme}/overview`)
    expect(await teams.roleOf(acme, bea.id)).toBe('admin')
    settle(watched)
  })

  it('shows at once that a used, cancelled or expired invitation link no longer works, with no forms', async () => {
    const watched = await openPage(url)
    const { page } = watched
    await go(page, '/invitations#token=no-longer-a-valid-token')
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This invitation is not valid')
    expect(await page.locator('form').count()).toBe(0)
    expect(await page.getByLabel('I have an account').count()).toBe(0)
    settle(watched)
  })
})
