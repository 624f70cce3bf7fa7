/**
 * Self-service accounts in cloud mode, through the HTTP API with mail delivered over real SMTP to
 * a local sink (test/helpers/smtp-sink.ts, the stand-in for the operator's relay): sign-up, email
 * verification, sign-in, password reset, and their failure paths.
 */
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'
import { startSmtpSink, tokenIn, type SmtpSink } from '../helpers/smtp-sink.js'
import { setProcessEnv } from '../helpers/tmp.js'

const PUBLIC_URL = 'https://lectern.example.test'
const PASSWORD = 'a long and varied passphrase'

async function cloudApp(): Promise<{ app: FastifyInstance; sink: SmtpSink }> {
  const sink = await startSmtpSink()
  const app = await buildTestApp({ mode: 'cloud', mail: { smtpUrl: sink.url, publicUrl: PUBLIC_URL, from: 'Lectern <accounts@lectern.example.test>' } })
  return { app, sink }
}

const post = (app: FastifyInstance, url: string, payload: object, cookies?: Record<string, string>) => app.inject({ method: 'POST', url, payload, cookies })

async function login(app: FastifyInstance, email: string, password = PASSWORD) {
  const response = await post(app, '/api/auth/login', { email, password })
  const cookie = response.cookies.find((c) => c.name === 'lectern_session')
  return { response, cookies: cookie ? { lectern_session: cookie.value } : undefined }
}

/** Signs up and follows the verification link; answers the signed-in session. */
export async function signUpVerified(app: FastifyInstance, sink: SmtpSink, email: string): Promise<{ lectern_session: string }> {
  expect((await post(app, '/api/auth/signup', { email, password: PASSWORD })).statusCode).toBe(202)
  expect((await post(app, '/api/auth/verify', { token: tokenIn(await sink.next(email), 'verify') })).statusCode).toBe(200)
  return (await login(app, email)).cookies!
}

describe('cloud sign-up', () => {
  it('signs up, mails a verification link to the dashboard, verifies once, and signs in', async () => {
    const { app, sink } = await cloudApp()
    const signup = await post(app, '/api/auth/signup', { email: 'ada@example.com', password: PASSWORD })
    expect(signup.statusCode).toBe(202)
    expect(signup.body).not.toMatch(/token/i)

    const mail = await sink.next('ada@example.com')
    expect(mail.from).toBe('accounts@lectern.example.test')
    expect(mail.subject).toBe('Confirm your email for Lectern')
    expect(mail.text).toContain(`${PUBLIC_URL}/verify#token=`)
    const token = tokenIn(mail, 'verify')

    // Signed in before verifying: allowed, but what needs a proven address is refused.
    const early = await login(app, 'ada@example.com')
    expect(early.response.statusCode).toBe(200)
    const session = await app.inject({ method: 'GET', url: '/api/session', cookies: early.cookies })
    expect(session.json()).toMatchObject({ user: { email: 'ada@example.com', role: 'member' }, emailVerified: false, teams: [{ name: 'ada@example.com', personal: true, role: 'owner', plan: 'free' }] })
    const personal = session.json().teams[0].id as number
    const refusedKey = await post(app, `/api/teams/${personal}/keys`, { name: 'laptop' }, early.cookies)
    expect(refusedKey.statusCode).toBe(403)
    expect(refusedKey.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('Confirm your email first') })

    const verified = await post(app, '/api/auth/verify', { token })
    expect(verified.statusCode).toBe(200)
    expect(verified.json()).toEqual({ email: 'ada@example.com', emailVerified: true })
    const again = await post(app, '/api/auth/verify', { token })
    expect(again.statusCode).toBe(400)
    expect(again.json().error).toBe('validation_error')

    const created = await post(app, `/api/teams/${personal}/keys`, { name: 'laptop' }, early.cookies)
    expect(created.statusCode).toBe(201)
    const key = created.json().key as string
    expect(key).toMatch(/^lct_/)
    const search = await app.inject({ method: 'GET', url: '/api/v2/libs/search?libraryName=x&query=y', headers: { authorization: `Bearer ${key}` } })
    expect(search.statusCode).not.toBe(401)
  })

  it('refuses a bad email and a weak password with 400, and creates nobody', async () => {
    const { app, sink } = await cloudApp()
    for (const [email, password, says] of [
      ['not-an-email', PASSWORD, 'not an email address'],
      ['bob@example.com', 'short', 'at least 12 characters'],
      ['bob@example.com', 'aaaaaaaaaaaaaaaa', 'different characters'],
    ]) {
      const response = await post(app, '/api/auth/signup', { email, password })
      expect(response.statusCode, email).toBe(400)
      expect(response.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining(says) })
    }
    expect(await app.runtime.store.users.list()).toEqual([])
    expect(sink.received).toEqual([])
  })

  it('answers a sign-up for a known address exactly as for a new one, mails that address a reset link, and keeps its password', async () => {
    const { app, sink } = await cloudApp()
    await signUpVerified(app, sink, 'cy@example.com')
    const duplicate = await post(app, '/api/auth/signup', { email: 'CY@example.com', password: 'someone elses passphrase' })
    const fresh = await post(app, '/api/auth/signup', { email: 'dee@example.com', password: PASSWORD })
    expect(duplicate.statusCode).toBe(fresh.statusCode)
    expect(duplicate.json()).toEqual(fresh.json())

    const notice = await sink.next('cy@example.com')
    expect(notice.subject).toBe('You already have a Lectern account')
    expect(tokenIn(notice, 'reset')).toBeTruthy()
    expect((await login(app, 'cy@example.com')).response.statusCode).toBe(200)
    expect((await login(app, 'cy@example.com', 'someone elses passphrase')).response.statusCode).toBe(401)
    expect((await app.runtime.store.users.list()).map((u) => u.email)).toEqual(['cy@example.com', 'dee@example.com'])
  })

  it('resends a verification link to a signed-in, unverified user; the older link stops working', async () => {
    const { app, sink } = await cloudApp()
    await post(app, '/api/auth/signup', { email: 'eve@example.com', password: PASSWORD })
    const first = tokenIn(await sink.next('eve@example.com'), 'verify')
    const { cookies } = await login(app, 'eve@example.com')
    expect((await post(app, '/api/auth/verify-resend', {}, cookies)).statusCode).toBe(202)
    const second = tokenIn(await sink.next('eve@example.com'), 'verify')
    expect((await post(app, '/api/auth/verify', { token: first })).statusCode).toBe(400)
    expect((await post(app, '/api/auth/verify', { token: second })).statusCode).toBe(200)
    expect((await post(app, '/api/auth/verify-resend', {}, cookies)).json().error).toBe('validation_error')
    expect((await post(app, '/api/auth/verify-resend', {})).statusCode).toBe(401)
  })
})

describe('cloud password reset', () => {
  it('mails a link, sets the new password, ends every session, and the link works once', async () => {
    const { app, sink } = await cloudApp()
    const first = await signUpVerified(app, sink, 'fay@example.com')
    const second = (await login(app, 'fay@example.com')).cookies!

    expect((await post(app, '/api/auth/reset-request', { email: 'fay@example.com' })).statusCode).toBe(202)
    const token = tokenIn(await sink.next('fay@example.com'), 'reset')

    const weak = await post(app, '/api/auth/reset', { token, password: 'short' })
    expect(weak.statusCode).toBe(400)
    // A refused password does not use up the link.
    const reset = await post(app, '/api/auth/reset', { token, password: 'a brand new passphrase' })
    expect(reset.statusCode).toBe(204)

    for (const cookies of [first, second]) {
      const me = await app.inject({ method: 'GET', url: '/api/session', cookies })
      expect(me.json().user).toBeNull()
    }
    expect((await login(app, 'fay@example.com')).response.statusCode).toBe(401)
    expect((await login(app, 'fay@example.com', 'a brand new passphrase')).response.statusCode).toBe(200)

    const reused = await post(app, '/api/auth/reset', { token, password: 'yet another passphrase' })
    expect(reused.statusCode).toBe(400)
    expect(reused.json().error).toBe('validation_error')
    expect((await login(app, 'fay@example.com', 'a brand new passphrase')).response.statusCode).toBe(200)
  })

  it('answers an unknown address exactly as a known one, and mails nobody', async () => {
    const { app, sink } = await cloudApp()
    await signUpVerified(app, sink, 'gus@example.com')
    const unknown = await post(app, '/api/auth/reset-request', { email: 'nobody@example.com' })
    const known = await post(app, '/api/auth/reset-request', { email: 'gus@example.com' })
    expect(unknown.statusCode).toBe(202)
    expect(unknown.json()).toEqual(known.json())
    await sink.next('gus@example.com')
    expect(sink.received.some((m) => m.to.includes('nobody@example.com'))).toBe(false)
  })

  it('refuses an expired link and a made-up one', async () => {
    const { app, sink } = await cloudApp()
    await signUpVerified(app, sink, 'hal@example.com')
    const user = (await app.runtime.store.users.byEmail('hal@example.com'))!
    const expired = await app.runtime.store.accountTokens.issue(user.id, 'reset', 60_000, Date.now() - 120_000)
    for (const token of [expired, 'made-up-token']) {
      const response = await post(app, '/api/auth/reset', { token, password: 'a brand new passphrase' })
      expect(response.statusCode, token).toBe(400)
      expect(response.json().error).toBe('validation_error')
    }
    expect((await login(app, 'hal@example.com')).response.statusCode).toBe(200)
    // A verification link is no reset link.
    await post(app, '/api/auth/signup', { email: 'ian@example.com', password: PASSWORD })
    const verifyToken = tokenIn(await sink.next('ian@example.com'), 'verify')
    expect((await post(app, '/api/auth/reset', { token: verifyToken, password: 'a brand new passphrase' })).statusCode).toBe(400)
  })
})

describe('account mail without a relay', () => {
  it('writes the links to the log at info, never the password', async () => {
    const lines: string[] = []
    const app = await buildTestApp({ mode: 'cloud', logStream: { write: (line: string) => void lines.push(line) } })
    await post(app, '/api/auth/signup', { email: 'jo@example.com', password: PASSWORD })
    const log = lines.map((line) => JSON.parse(line) as { level: number; msg: string })
    const mail = log.find((entry) => entry.msg.includes('/verify#token='))
    expect(mail?.level).toBe(30)
    expect(lines.join('\n')).not.toContain(PASSWORD)
    // Only the mail line holds the token: using it posts it in a body, which request lines do not log.
    const token = /\/verify#token=([A-Za-z0-9_-]+)/.exec(mail!.msg)![1]!
    expect((await post(app, '/api/auth/verify', { token })).statusCode).toBe(200)
    expect(lines.some((line) => line.includes('/api/auth/verify'))).toBe(true)
    expect(lines.filter((line) => line.includes(token))).toHaveLength(1)
    // Without mail.publicUrl the link is a bare path, and the line says what to put before it.
    expect(mail!.msg).toContain(`\n/verify#token=${token}\n`)
    expect(mail!.msg).toContain("Its link is a path of the dashboard: put this server's public address before it")
  })

  it('writes whole links to the log when mail.publicUrl is set, with no note about paths', async () => {
    const lines: string[] = []
    const app = await buildTestApp({ mode: 'cloud', mail: { publicUrl: 'https://lectern.example.test' }, logStream: { write: (line: string) => void lines.push(line) } })
    await post(app, '/api/auth/signup', { email: 'jo@example.com', password: PASSWORD })
    const mail = lines.map((line) => JSON.parse(line) as { msg: string }).find((entry) => entry.msg.includes('#token='))!
    expect(mail.msg).toMatch(/\nhttps:\/\/lectern\.example\.test\/verify#token=[A-Za-z0-9_-]+\n/)
    expect(mail.msg).not.toContain('path of the dashboard')
  })

  it('refuses to start with a relay but no public URL for the links', async () => {
    await expect(buildTestApp({ mode: 'cloud', mail: { smtpUrl: 'smtp://127.0.0.1:25' } })).rejects.toThrow(/mail\.publicUrl/)
  })
})

describe('account mail through a relay that wants a login', () => {
  it('logs in as the URL\'s user with LECTERN_SMTP_PASSWORD; a refused login is logged without the mail\'s link', async () => {
    const sink = await startSmtpSink(undefined, { user: 'lectern', pass: 'relay secret' })
    setProcessEnv({ LECTERN_SMTP_PASSWORD: 'relay secret' })
    const smtpUrl = sink.url.replace('smtp://', 'smtp://lectern@')
    const app = await buildTestApp({ mode: 'cloud', mail: { smtpUrl, publicUrl: PUBLIC_URL } })
    await post(app, '/api/auth/signup', { email: 'lou@example.com', password: PASSWORD })
    expect(tokenIn(await sink.next('lou@example.com'), 'verify')).toBeTruthy()

    setProcessEnv({ LECTERN_SMTP_PASSWORD: 'wrong' })
    const lines: string[] = []
    const refused = await buildTestApp({ mode: 'cloud', mail: { smtpUrl, publicUrl: PUBLIC_URL }, logStream: { write: (line: string) => void lines.push(line) } })
    expect((await post(refused, '/api/auth/signup', { email: 'max@example.com', password: PASSWORD })).statusCode).toBe(202)
    await refused.close()
    const failure = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).find((entry) => entry.msg.startsWith('could not send account mail'))
    expect(failure?.level).toBe(50)
    expect(lines.join('\n')).not.toContain('#token=')
    expect(lines.join('\n')).not.toContain('wrong')
    expect(sink.received.some((m) => m.to.includes('max@example.com'))).toBe(false)
  })

  it('refuses a password written into mail.smtpUrl, where `config get` would show it', async () => {
    await expect(buildTestApp({ mode: 'cloud', mail: { smtpUrl: 'smtp://lectern:secret@127.0.0.1:25', publicUrl: PUBLIC_URL } })).rejects.toThrow(/LECTERN_SMTP_PASSWORD/)
  })
})

describe('accounts on-premise', () => {
  it('do not exist: sign-up answers 404', async () => {
    const app = await buildTestApp({ mode: 'onprem' })
    const response = await post(app, '/api/auth/signup', { email: 'kim@example.com', password: PASSWORD })
    expect(response.statusCode).toBe(404)
    expect(await app.runtime.store.users.list()).toEqual([])
  })
})
