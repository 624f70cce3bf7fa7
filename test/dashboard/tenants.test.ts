/**
 * The cloud's dashboard for its users, in Debian's Chromium against a real HTTP server (buildApp in
 * cloud mode listening on 127.0.0.1, port 0) whose account mail goes over SMTP to a local sink
 * (the stand-in for the operator's relay): sign-up and the mailed confirmation link, a password
 * reset through its link, a teamspace created once the plan allows it, an invitation mailed to
 * someone who signs up from its link and lands in the team, the teamspace switcher, what a
 * developer may not do, and keys created and revoked. One server and one browser for the file;
 * the steps build on each other.
 */
import type { FastifyInstance } from 'fastify'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'
import { openPage, screenshot, unlabelledControls, type WatchedPage } from '../helpers/browser.js'
import type { Element, HTMLSelectElement, InPage } from '../helpers/in-page.js'
import { startSmtpSink, tokenIn, type SmtpSink } from '../helpers/smtp-sink.js'
import { suiteTeardown } from '../helpers/tmp.js'

const PUBLIC_URL = 'https://lectern.example.test'
const ADA = 'ada@example.com'
const BOB = 'bob@example.com'
const PASSWORD = 'a long and varied passphrase'
const NEW_PASSWORD = 'another quite different passphrase'
const BETWEEN_PASSWORD = 'a passphrase changed on the account page'

let app: FastifyInstance
let sink: SmtpSink
let url: string
let ada: WatchedPage
let bob: WatchedPage

const settle = (watched: WatchedPage) => expect(watched.problems, 'CSP violations or script errors in the browser').toEqual([])

/** The path and fragment of the mail's link to a dashboard page, checked to be under the public URL, to open on this server. */
async function mailedLink(to: string, page: 'verify' | 'reset' | 'invitations'): Promise<string> {
  const mail = await sink.next(to)
  const token = tokenIn(mail, page)
  expect(mail.text).toContain(`${PUBLIC_URL}/${page}#token=${token}`)
  return `/${page}#token=${token}`
}

/** Opens or reloads and waits for the favicon too, so the next navigation aborts no asset of this load. */
const go = (page: Page, path: string) => page.goto(path, { waitUntil: 'networkidle' })
const reload = (page: Page) => page.reload({ waitUntil: 'networkidle' })
const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 })
const heading2 = (page: Page, name: string) => page.getByRole('heading', { name, level: 2 })
const userId = async (email: string) => (await app.runtime.store.users.byEmail(email))!.id
const search = (key: string) => fetch(`${url}/api/v2/libs/search?libraryName=x&query=y`, { headers: { authorization: `Bearer ${key}` } })

/**
 * How the header lays out: the links and buttons whose text breaks over lines, and whether the
 * teamspace switcher is too narrow for its longest name (measured in its own font).
 */
const headerLayout = (page: Page) =>
  page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as unknown as InPage
    const lines = (element: Element) => {
      const range = document.createRange()
      range.selectNodeContents(element)
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size
    }
    const broken = [...document.querySelectorAll('header nav a, header nav button')].filter((element) => lines(element) > 1).map((element) => element.textContent)
    const select = document.querySelector<HTMLSelectElement>('header select')!
    const style = getComputedStyle(select)
    const context = document.createElement('canvas').getContext('2d')!
    context.font = style.font
    const widest = Math.max(...[...select.options].map((option) => context.measureText(option.textContent ?? '').width))
    return { broken, switcherCut: widest > select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) }
  })

/** The space between the bottom of one element and the top of the next. */
const gapBetween = async (page: Page, above: string, below: string) =>
  page.evaluate(([a, b]) => {
    const { document } = globalThis as unknown as InPage
    return document.querySelector(b!)!.getBoundingClientRect().top - document.querySelector(a!)!.getBoundingClientRect().bottom
  }, [above, below])

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

describe('the cloud dashboard for tenants', () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    sink = await startSmtpSink(teardown)
    app = await buildTestApp({
      mode: 'cloud',
      mail: { smtpUrl: sink.url, publicUrl: PUBLIC_URL },
      rateLimit: { anonymous: 0, keyed: 1000, windowSeconds: 60 },
      startWorker: false,
      defer: teardown,
    })
    // The operator exists (the first-run setup is done); tenants sign themselves up.
    await app.runtime.store.users.create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' })
    url = await app.listen({ port: 0, host: '127.0.0.1' })
    ada = await openPage(url, teardown)
    bob = await openPage(url, teardown)
  }, 60_000)

  it('signs up, shows the unconfirmed banner, and confirms the address from the newest mailed link', async () => {
    const { page } = ada
    await go(page, '/')
    await expect.poll(() => heading(page, 'Sign in to Lectern').isVisible()).toBe(true)
    expect(await unlabelledControls(page), 'sign-in').toEqual([])
    await page.getByRole('link', { name: 'Create an account' }).click()
    await expect.poll(() => heading(page, 'Create an account').isVisible()).toBe(true)
    expect(await unlabelledControls(page), 'sign-up').toEqual([])
    await screenshot(page, 'cloud-sign-up')
    // The password's hint is closer to its field than to the next field's label.
    const hint = await page.evaluate(() => {
      const { document } = globalThis as unknown as InPage
      const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect()
      return { fromField: box('#password-help').top - box('input[name=password]').bottom, toNext: box('label:has(input[name=confirm])').top - box('#password-help').bottom }
    })
    expect(hint.fromField).toBeLessThan(hint.toNext)
    await page.getByLabel('Email', { exact: true }).fill(ADA)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Password again').fill('not the same passphrase')
    await page.getByRole('button', { name: 'Create the account' }).click()
    await expect.poll(() => page.getByText('The two passwords differ.').isVisible()).toBe(true)
    expect(await app.runtime.store.users.byEmail(ADA)).toBeUndefined()
    await page.getByLabel('Password again').fill(PASSWORD)
    await page.getByRole('button', { name: 'Create the account' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('a message with a link is on its way')
    const firstLink = await mailedLink(ADA, 'verify')

    await page.getByRole('link', { name: 'Sign in' }).click()
    await signIn(page, ADA, PASSWORD)
    // Signed in, the personal space's overview, at a URL that names the team.
    await expect.poll(() => heading(page, 'Personal space').isVisible()).toBe(true)
    const personal = (await app.runtime.store.teams.personalTeam(await userId(ADA))).id
    expect(new URL(page.url()).pathname).toBe(`/teams/${personal}/overview`)
    const banner = page.getByRole('article', { name: 'Unconfirmed email' })
    expect(await banner.textContent()).toContain(`open the link we mailed to ${ADA}`)
    expect(await gapBetween(page, 'article.banner', 'main h1')).toBeGreaterThanOrEqual(16)
    // What needs a confirmed address shows the server's refusal.
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Name of the new key').fill('laptop')
    await page.getByRole('button', { name: 'Create key' }).click()
    // In the page's words, not the API's (which names the route that resends the link); the code in small print.
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Confirm your address first: use the link we mailed, or "Send the link again" above. (code: forbidden)')
    expect(await page.getByRole('alert').locator('small').textContent()).toBe('(code: forbidden)')
    expect(await app.runtime.store.keys.list({ userId: await userId(ADA) })).toEqual([])

    await banner.getByRole('button', { name: 'Send the link again' }).click()
    await expect.poll(() => banner.getByRole('status').textContent()).toContain('a message with a link is on its way')
    const secondLink = await mailedLink(ADA, 'verify')
    // The older link stopped working: the page says so, and the address stays unconfirmed.
    await go(page, firstLink)
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('validation_error')
    expect((await app.runtime.store.users.byEmail(ADA))!.emailVerified).toBe(false)
    // Opened in the same tab, where only the fragment changes: the page reads it all the same.
    await go(page, secondLink)
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`${ADA} is confirmed.`)
    // The token is out of the address bar and the history entry.
    expect(page.url()).toBe(`${url}/verify`)
    expect(await page.evaluate(() => (globalThis as unknown as InPage).location.hash)).toBe('')
    await expect.poll(() => page.getByRole('article', { name: 'Unconfirmed email' }).count()).toBe(0)
    expect((await app.runtime.store.users.byEmail(ADA))!.emailVerified).toBe(true)
    settle(ada)
  }, 60_000)

  it('resets a forgotten password through the mailed link, keeping the link through a refused password', async () => {
    const { page } = ada
    // Signed in, Account changes the password in place with the current one; a wrong one changes nothing.
    await page.getByRole('link', { name: 'Account' }).click()
    await page.getByLabel('Current password').fill('not the password at all')
    await page.getByLabel('New password').fill(BETWEEN_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not_authenticated')
    expect(await app.runtime.store.users.verify(ADA, PASSWORD)).toBeDefined()
    await page.getByLabel('Current password').fill(PASSWORD)
    await page.getByLabel('New password').fill(BETWEEN_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Password changed.')
    expect(await app.runtime.store.users.verify(ADA, BETWEEN_PASSWORD)).toBeDefined()
    expect(await unlabelledControls(page), 'account').toEqual([])

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await expect.poll(() => heading(page, 'Reset your password').isVisible()).toBe(true)
    await page.getByLabel('Email', { exact: true }).fill(ADA)
    await page.getByRole('button', { name: 'Mail me a link' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('a message with a link is on its way')

    await go(page, await mailedLink(ADA, 'reset'))
    await expect.poll(() => heading(page, 'Set a new password').isVisible()).toBe(true)
    expect(page.url()).toBe(`${url}/reset`)
    expect(await unlabelledControls(page), 'reset').toEqual([])
    await page.getByLabel('New password').fill('aaaaaaaaaaaaaaaa')
    await page.getByLabel('Password again').fill('aaaaaaaaaaaaaaaa')
    await page.getByRole('button', { name: 'Set the password' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('different characters')
    await page.getByLabel('New password').fill(NEW_PASSWORD)
    await page.getByLabel('Password again').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Set the password' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Your password is changed')

    await page.getByRole('link', { name: 'Sign in with the new password' }).click()
    await signIn(page, ADA, PASSWORD)
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong email or password')
    // With the keyboard alone.
    await page.getByLabel('Password', { exact: true }).fill('')
    await page.getByLabel('Email', { exact: true }).focus()
    await page.keyboard.press('Tab')
    await page.keyboard.type(NEW_PASSWORD)
    await page.keyboard.press('Enter')
    await expect.poll(() => heading(page, 'Personal space').isVisible()).toBe(true)
    settle(ada)
  })

  it('creates a teamspace once the plan allows it, invites by mail, and the invitee signs up from the link and lands in the team', async () => {
    const { page } = ada
    expect(await page.getByTestId('creates-teams').textContent()).toBe('Your personal plan (free) does not include creating teamspaces.')
    await page.getByLabel('Name of the new teamspace').fill('Acme')
    await page.getByRole('button', { name: 'Create teamspace' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Creating a teamspace needs a pro or enterprise plan.')
    expect(await app.runtime.store.teams.byName('Acme')).toBeUndefined()

    // The operator moves Ada's personal space to pro (what `lectern teams plan set` does).
    await app.runtime.store.teams.setPlan((await app.runtime.store.teams.personalTeam(await userId(ADA))).id, 'pro')
    await reload(page)
    await page.getByLabel('Name of the new teamspace').fill('Acme')
    await page.getByRole('button', { name: 'Create teamspace' }).click()
    await expect.poll(() => heading(page, 'Acme').isVisible()).toBe(true)
    const acme = (await app.runtime.store.teams.byName('Acme'))!.id
    expect(new URL(page.url()).pathname).toBe(`/teams/${acme}/overview`)
    expect(await page.getByLabel('Teamspace', { exact: true }).inputValue()).toBe(String(acme))
    const limits = page.getByRole('table')
    await expect.poll(() => limits.getByRole('row', { name: /Members/ }).textContent()).toBe('Members1 of 10')
    expect(await limits.getByRole('row', { name: /Requests per API key/ }).textContent()).toContain('5,000 per 60 s')
    expect(await limits.getByRole('row', { name: /Private sources/ }).textContent()).toContain('allowed')
    // Creating teamspaces is the user's (their personal plan), not a limit of this team.
    expect(await limits.getByRole('row', { name: /Creating teamspaces/ }).count()).toBe(0)
    expect(await page.getByTestId('creates-teams').textContent()).toBe('Your personal plan (pro) includes creating teamspaces.')
    expect(await unlabelledControls(page), 'overview').toEqual([])
    await screenshot(page, 'cloud-overview')

    await page.getByRole('link', { name: 'Members' }).click()
    await page.getByLabel('Email to invite').fill(BOB)
    await page.getByLabel('Role of the invitee').selectOption('developer')
    await page.getByRole('button', { name: 'Invite' }).click()
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Invitation' }).textContent()).toBe(`Invitation mailed to ${BOB} as developer.`)
    await expect.poll(() => page.getByRole('row', { name: new RegExp(BOB) }).textContent()).toContain('developer')
    expect(await unlabelledControls(page), 'members').toEqual([])
    await screenshot(page, 'cloud-members')
    const invitation = await mailedLink(BOB, 'invitations')
    // Opened while signed in as another address: the server's refusal shows, and the link stays good.
    await go(page, invitation)
    await page.getByRole('button', { name: 'Accept the invitation' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This invitation is for another email address')
    await go(page, `/teams/${acme}/members`)

    // Bob has no account: he opens the link, creates one on the same page, and accepts.
    const other = bob.page
    await go(other, invitation)
    await expect.poll(() => heading(other, 'Join a teamspace').isVisible()).toBe(true)
    expect(other.url()).toBe(`${url}/invitations`)
    // Signed out, the page names the team, the role and the address, and shows one form, the invitee's choice, for that address.
    await expect.poll(() => other.getByText(`You are invited to Acme as developer (${BOB}).`).isVisible()).toBe(true)
    expect(await other.locator('form').count()).toBe(0)
    await other.getByLabel('Create an account').check()
    expect(await unlabelledControls(other), 'invitation, signed out').toEqual([])
    expect(await other.locator('form').count()).toBe(1)
    await expect.poll(() => heading2(other, `Create an account for ${BOB}`).isVisible()).toBe(true)
    const signUp = other.locator('form').filter({ has: other.getByRole('button', { name: 'Create the account' }) })
    expect(await signUp.getByLabel('Email', { exact: true }).inputValue()).toBe(BOB)
    expect(await signUp.getByLabel('Email', { exact: true }).isEditable()).toBe(false)
    await signUp.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await signUp.getByLabel('Password again').fill(PASSWORD)
    await signUp.getByRole('button', { name: 'Create the account' }).click()
    await other.getByRole('button', { name: 'Accept the invitation' }).click()
    await expect.poll(() => heading(other, 'Acme').isVisible()).toBe(true)
    expect(new URL(other.url()).pathname).toBe(`/teams/${acme}/overview`)
    expect(await other.getByText('Your role:').textContent()).toContain('developer')
    // Bob's own plan, not Acme's, decides whether he may create teamspaces.
    expect(await other.getByTestId('creates-teams').textContent()).toBe('Your personal plan (free) does not include creating teamspaces.')
    // Accepting the mailed link confirmed the address: no banner.
    expect(await other.getByRole('article', { name: 'Unconfirmed email' }).count()).toBe(0)
    expect(await app.runtime.store.teams.roleOf(acme, await userId(BOB))).toBe('developer')

    // An invitation mailed, then cancelled before it is accepted.
    await reload(page)
    await page.getByLabel('Email to invite').fill('carol@example.com')
    await page.getByRole('button', { name: 'Invite' }).click()
    await mailedLink('carol@example.com', 'invitations')
    await page.getByRole('button', { name: 'Cancel the invitation of carol@example.com' }).click()
    await expect.poll(() => page.getByText('No pending invitations.').isVisible()).toBe(true)
    expect(await page.getByRole('status', { name: 'Members changes' }).textContent()).toBe('Cancelled the invitation of carol@example.com.')
    expect(await app.runtime.store.invitations.pending(acme)).toEqual([])
    await reload(page)
    await expect.poll(() => page.getByRole('row', { name: new RegExp(BOB) }).getByLabel(`Role of ${BOB}`, { exact: true }).inputValue()).toBe('developer')
    settle(ada)
    settle(bob)
  })

  it('switches between the personal space and the teamspace, and a reload keeps the team of the URL', async () => {
    const { page } = ada
    const acme = (await app.runtime.store.teams.byName('Acme'))!.id
    const personal = (await app.runtime.store.teams.personalTeam(await userId(ADA))).id
    await page.getByLabel('Teamspace', { exact: true }).selectOption(String(personal))
    await expect.poll(() => heading(page, 'Members of your personal space').isVisible()).toBe(true)
    expect(new URL(page.url()).pathname).toBe(`/teams/${personal}/members`)
    expect(await page.getByLabel('Email to invite').count()).toBe(0)
    // The switcher by keyboard: the next team down the list.
    await page.getByLabel('Teamspace', { exact: true }).focus()
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => heading(page, 'Members of Acme').isVisible()).toBe(true)
    await reload(page)
    await expect.poll(() => heading(page, 'Members of Acme').isVisible()).toBe(true)
    expect(await page.getByLabel('Teamspace', { exact: true }).inputValue()).toBe(String(acme))
    // At 1280 and at 1024 px no link or button of the header breaks, and the switcher shows whole names.
    for (const width of [1280, 1024]) {
      await page.setViewportSize({ width, height: 900 })
      expect(await headerLayout(page), `at ${width} px`).toEqual({ broken: [], switcherCut: false })
    }
    await page.setViewportSize({ width: 1280, height: 900 })
    // A team the user is not in, by its URL: nothing of it shows.
    await go(page, `/teams/${acme + 100}/overview`)
    await expect.poll(() => heading(page, 'No such teamspace').isVisible()).toBe(true)
    settle(ada)
  })

  it('shows a developer no member controls, and the server\'s refusal when a control outlives the role', async () => {
    const other = bob.page
    const acme = (await app.runtime.store.teams.byName('Acme'))!.id
    await other.getByRole('link', { name: 'Members' }).click()
    await expect.poll(() => heading(other, 'Members of Acme').isVisible()).toBe(true)
    await expect.poll(() => other.getByRole('row', { name: new RegExp(ADA) }).textContent()).toContain('owner')
    expect(await other.getByLabel('Email to invite').count()).toBe(0)
    expect(await other.getByRole('combobox', { name: /Role of/ }).count()).toBe(0)
    expect(await other.getByRole('button', { name: /^Remove/ }).count()).toBe(0)
    expect(await other.getByText('Pending invitations').count()).toBe(0)
    expect(await other.getByRole('button', { name: 'Leave the teamspace' }).isVisible()).toBe(true)
    expect(await other.getByRole('button', { name: 'Delete teamspace' }).count()).toBe(0)

    // A role changes on "Change role" only: arrowing through the select saves nothing.
    await go(ada.page, `/teams/${acme}/members`)
    const role = ada.page.getByLabel(`Role of ${BOB}`, { exact: true })
    const change = ada.page.getByRole('button', { name: `Change the role of ${BOB}` })
    expect(await change.isDisabled()).toBe(true)
    await role.focus()
    await ada.page.keyboard.press('ArrowDown')
    expect(await role.inputValue()).toBe('admin')
    expect(await change.isDisabled()).toBe(false)
    expect(await app.runtime.store.teams.roleOf(acme, await userId(BOB))).toBe('developer')
    await ada.page.keyboard.press('Tab')
    await ada.page.keyboard.press('Enter')
    // Promoted to admin: said so, and the focus stays on his row's role once the table is redrawn.
    const changes = ada.page.getByRole('status', { name: 'Members changes' })
    await expect.poll(() => changes.textContent()).toBe(`${BOB} is now admin.`)
    expect(await app.runtime.store.teams.roleOf(acme, await userId(BOB))).toBe('admin')
    await expect.poll(() => ada.page.evaluate(() => (globalThis as unknown as InPage).document.activeElement?.getAttribute('aria-label'))).toBe(`Role of ${BOB}`)
    expect(await change.isDisabled()).toBe(true)
    // Bob's page shows the controls; demoted while it is open, the server refuses.
    await reload(other)
    await other.getByLabel('Email to invite').fill('carol@example.com')
    await role.selectOption('developer')
    await change.click()
    await expect.poll(() => changes.textContent()).toBe(`${BOB} is now developer.`)
    expect(await app.runtime.store.teams.roleOf(acme, await userId(BOB))).toBe('developer')
    await other.getByRole('button', { name: 'Invite' }).click()
    await expect.poll(() => other.getByRole('alert').textContent()).toContain('forbidden')
    expect(await app.runtime.store.invitations.pending(acme)).toEqual([])
    settle(bob)
    settle(ada)
  })

  it('creates keys shown once that work until revoked; a developer sees their own, the owner everyone\'s with whose', async () => {
    const acme = (await app.runtime.store.teams.byName('Acme'))!.id
    const other = bob.page
    await other.getByRole('link', { name: 'API keys' }).click()
    await other.getByLabel('Name of the new key').fill('bob-laptop')
    await other.getByRole('button', { name: 'Create key' }).click()
    const bobKey = await other.getByTestId('new-key').inputValue()
    expect(bobKey).toMatch(/^lct_/)
    expect((await search(bobKey)).status).not.toBe(401)

    const { page } = ada
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Name of the new key').fill('ci')
    await page.getByRole('button', { name: 'Create key' }).click()
    const adaKey = await page.getByTestId('new-key').inputValue()
    await page.getByRole('button', { name: 'Copy' }).click()
    expect(await page.evaluate(() => (globalThis as unknown as InPage).navigator.clipboard.readText())).toBe(adaKey)
    await expect.poll(() => page.getByRole('row', { name: /bob-laptop/ }).textContent()).toContain(BOB)
    expect(await page.getByRole('row', { name: /^ci/ }).textContent()).toContain(ADA)
    expect(await unlabelledControls(page), 'keys').toEqual([])
    await screenshot(page, 'cloud-keys')
    // The key is in the page that created it only: a reload shows its preview, not the key.
    await reload(page)
    await expect.poll(() => page.getByRole('row', { name: /^ci/ }).isVisible()).toBe(true)
    expect(await page.content()).not.toContain(adaKey)

    // Bob sees his own key only.
    await reload(other)
    await expect.poll(() => other.getByRole('row', { name: /bob-laptop/ }).isVisible()).toBe(true)
    expect(await other.getByRole('row', { name: /^ci/ }).count()).toBe(0)

    // The owner revokes Bob's key, after a second click.
    await page.getByRole('button', { name: 'Revoke key bob-laptop' }).click()
    expect((await search(bobKey)).status).not.toBe(401)
    await page.getByRole('button', { name: 'Revoke bob-laptop now' }).click()
    await expect.poll(() => page.getByRole('row', { name: /bob-laptop/ }).count()).toBe(0)
    expect(await page.getByRole('status', { name: 'Revoked' }).textContent()).toBe('Revoked bob-laptop: requests with it are refused from now on.')
    expect((await search(bobKey)).status).toBe(401)
    expect((await search(adaKey)).status).not.toBe(401)
    expect((await app.runtime.store.keys.list({ teamId: acme })).filter((k) => !k.revokedAt).map((k) => k.name)).toEqual(['ci'])
    settle(ada)
    settle(bob)
  })

  it('removes a member after a second click, renames the teamspace, and deletes it only after its name is typed', async () => {
    const { page } = ada
    const acme = (await app.runtime.store.teams.byName('Acme'))!.id
    await page.getByRole('link', { name: 'Members' }).click()
    await page.getByRole('button', { name: `Remove ${BOB}`, exact: true }).click()
    expect(await app.runtime.store.teams.roleOf(acme, await userId(BOB))).toBe('developer')
    await page.getByRole('button', { name: `Remove ${BOB} now` }).click()
    await expect.poll(() => page.getByRole('row', { name: new RegExp(BOB) }).count()).toBe(0)
    expect(await page.getByRole('status', { name: 'Members changes' }).textContent()).toBe(`Removed ${BOB}; their API keys for this teamspace are revoked.`)
    expect(await app.runtime.store.teams.roleOf(acme, await userId(BOB))).toBeUndefined()

    await page.getByRole('link', { name: 'Overview' }).click()
    await page.getByLabel('New name of the teamspace').fill('Acme Docs')
    await page.getByRole('button', { name: 'Rename' }).click()
    await expect.poll(() => heading(page, 'Acme Docs').isVisible()).toBe(true)
    expect(await page.getByLabel('Teamspace', { exact: true }).locator('option:checked').textContent()).toBe('Acme Docs')
    const confirm = page.getByLabel('Type Acme Docs to confirm')
    await confirm.fill('Acme')
    expect(await page.getByRole('button', { name: 'Delete teamspace' }).isDisabled()).toBe(true)
    await confirm.fill('Acme Docs')
    await page.getByRole('button', { name: 'Delete teamspace' }).click()
    await expect.poll(() => heading(page, 'Personal space').isVisible()).toBe(true)
    expect(await page.getByRole('status', { name: 'Notice' }).textContent()).toBe('Deleted Acme Docs; it had no private libraries.')
    expect(await app.runtime.store.teams.byPk(acme)).toBeUndefined()
    // The switcher reloads the session's teamspaces after the page moved on: awaited, not assumed.
    await expect.poll(() => page.getByLabel('Teamspace', { exact: true }).locator('option').allTextContents()).toEqual([`Personal space (${ADA})`])

    await reload(bob.page)
    await expect.poll(() => heading(bob.page, 'No such teamspace').isVisible()).toBe(true)
    await bob.page.getByRole('link', { name: 'your personal space' }).click()
    await expect.poll(() => heading(bob.page, 'Personal space').isVisible()).toBe(true)
    settle(ada)
    settle(bob)
  })
})
