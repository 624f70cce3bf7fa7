/**
 * Single sign-on in Chromium against a real `lectern serve` and a real OpenID provider
 * (oidc-provider on loopback, started here): the sign-in page's button, the provider's round trip,
 * an admin by group and a member created just in time, sign-out, a failed sign-in shown on the
 * page, and the password form folded away for the break-glass admin when passwords are off; and
 * an admin configuring single sign-on from Settings on a server started without it.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { openPage, screenshot, unlabelledControls } from '../helpers/browser.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, createAdmin, signIn } from '../helpers/dashboard-admin.js'
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js'
import { freePort, startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir } from '../helpers/tmp.js'

let server: ServerProcess
let idp: TestProvider

describe('single sign-on in the dashboard', () => {
  const teardown = suiteTeardown()
  beforeAll(async () => {
    const port = await freePort()
    const publicUrl = `http://127.0.0.1:${port}`
    idp = await startOidcProvider({
      redirectUri: `${publicUrl}/api/auth/sso/callback`,
      accounts: {
        'sub-ada': { email: 'ada@example.com', name: 'Ada Lovelace', groups: ['lectern-admins'] },
        'sub-bob': { email: 'bob@example.com', name: 'Bob Builder', groups: ['payments'] },
        'sub-eve': { email: 'eve@example.com', name: 'Eve', groups: [], emailVerified: false },
      },
    })
    teardown(() => idp.close())
    const dataDir = await tmpDataDir(teardown)
    // The break-glass admin, made as the README says.
    await createAdmin(dataDir)
    server = await startServer(
      dataDir,
      {
        LECTERN_PUBLIC_URL: publicUrl,
        LECTERN_SSO_ISSUER: idp.issuer,
        LECTERN_SSO_CLIENT_ID: idp.clientId,
        LECTERN_SSO_CLIENT_SECRET: idp.clientSecret,
        LECTERN_SSO_SCOPES: 'openid,email,profile,groups',
        LECTERN_SSO_ADMIN_GROUPS: 'lectern-admins',
        LECTERN_SSO_PASSWORD_SIGN_IN: 'false',
        LECTERN_SSO_BREAK_GLASS_ADMINS: 'ops@example.com',
        LECTERN_SSO_LABEL: 'Acme SSO',
      },
      teardown,
      { port },
    )
  }, 90_000)

  it('signs an admin in through the provider, back to the page asked, and out again', async () => {
    const { page, problems } = await openPage(server.url)
    idp.signInAs('sub-ada')
    await page.goto('/libraries')
    await page.getByRole('button', { name: 'Sign in with Acme SSO' }).click()
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true)
    expect(new URL(page.url()).pathname).toBe('/libraries')
    await page.getByRole('link', { name: 'Audit log' }).click()
    // The sign-in is in the audit log, said by the provider's user.
    await expect.poll(() => page.getByText('ada@example.com').first().isVisible()).toBe(true)
    const log = (await (await page.request.get('/api/audit?action=signin')).json()) as { events: Array<{ actor: { name: string }; details: { method: string } }> }
    expect(log.events[0]).toMatchObject({ actor: { name: 'ada@example.com' }, details: { method: 'sso' } })
    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect.poll(() => page.getByRole('button', { name: 'Sign in with Acme SSO' }).isVisible()).toBe(true)
    expect((await (await page.request.get('/api/session')).json()).user).toBeNull()
    expect(problems).toEqual([])
  })

  it('creates a member at their first sign-in, who gets no admin pages', async () => {
    const { page } = await openPage(server.url)
    idp.signInAs('sub-bob')
    await page.goto('/')
    await page.getByRole('button', { name: 'Sign in with Acme SSO' }).click()
    await expect.poll(() => page.getByText('Signed in as bob@example.com, who is not an admin').isVisible()).toBe(true)
    expect((await (await page.request.get('/api/audit')).json()).error).toBe('forbidden')
  })

  it('shows why a sign-in failed, and keeps the password form for the break-glass admin only', async () => {
    const { page } = await openPage(server.url)
    idp.signInAs('sub-eve')
    await page.goto('/')
    await page.getByRole('button', { name: 'Sign in with Acme SSO' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('eve@example.com is not verified')
    // Passwords are off: the form is folded away, and the break-glass admin signs in with it.
    await expect.poll(() => page.getByLabel('Password', { exact: true }).isVisible()).toBe(false)
    await page.getByText('Break-glass admin sign-in').click()
    await page.getByLabel('Email', { exact: true }).fill(ADMIN_EMAIL)
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true)
  })
})

describe('single sign-on configured from Settings', () => {
  const teardown = suiteTeardown()
  let plain: ServerProcess
  let provider: TestProvider
  beforeAll(async () => {
    const port = await freePort()
    provider = await startOidcProvider({
      redirectUri: `http://127.0.0.1:${port}/api/auth/sso/callback`,
      accounts: { 'sub-bob': { email: 'bob@example.com', name: 'Bob Builder', groups: ['payments'] } },
    })
    teardown(() => provider.close())
    const dataDir = await tmpDataDir(teardown)
    await createAdmin(dataDir)
    plain = await startServer(dataDir, {}, teardown, { port })
  }, 90_000)

  it('an admin saves the provider (a wrong issuer refused), and the sign-in page offers it at once', async () => {
    const { page, problems } = await openPage(plain.url)
    await signIn(page, '/settings')
    const form = page.getByRole('form', { name: 'Single sign-on' })
    await expect.poll(() => form.textContent()).toContain(`${plain.url}/api/auth/sso/callback`)
    await form.getByLabel('Issuer URL').fill('http://127.0.0.1:9')
    await form.getByLabel('Client ID').fill(provider.clientId)
    await form.getByLabel('Client secret (write-only)').fill(provider.clientSecret)
    await form.getByLabel('Sign-in button names').fill('Acme ID')
    await form.getByRole('button', { name: 'Save single sign-on' }).click()
    await expect.poll(() => form.getByRole('alert').textContent()).toContain('could not be reached')
    await form.getByLabel('Issuer URL').fill(provider.issuer)
    await form.getByRole('button', { name: 'Save single sign-on' }).click()
    await expect.poll(() => page.getByRole('button', { name: 'Turn single sign-on off' }).isVisible()).toBe(true)
    expect(await form.getByLabel('Client secret (write-only)').getAttribute('placeholder')).toContain('saved')
    expect(await unlabelledControls(page)).toEqual([])
    await screenshot(page, 'settings-sso')

    await page.getByRole('button', { name: 'Sign out' }).click()
    provider.signInAs('sub-bob')
    await page.getByRole('button', { name: 'Sign in with Acme ID' }).click()
    await expect.poll(() => page.getByText('Signed in as bob@example.com, who is not an admin').isVisible()).toBe(true)
    // The one refusal Chromium logs is the wrong issuer's (sso_unavailable).
    expect(problems).toEqual(['Failed to load resource: the server responded with a status of 503 (Service Unavailable)'])
  })
})
