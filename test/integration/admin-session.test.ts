import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { execa } from 'execa'
import { sqliteOf } from '../../src/store/index.js'

const PASSWORD = 'correct horse battery staple'

describe('admin sessions', () => {
  it('logs in with a hashed password, sets a strict HttpOnly cookie, and logs out', async () => {
    const app = await buildTestApp()
    await app.runtime.store.users.create({ email: 'ops@example.com', password: PASSWORD })
    const stored = sqliteOf(app.runtime.store).prepare('SELECT password_hash FROM users').pluck().get() as string
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/)
    expect(stored).not.toContain(PASSWORD)

    const wrong = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'ops@example.com', password: 'nope' } })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json()).toEqual({ error: 'not_authenticated', message: 'Wrong email or password.' })
    const unknown = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'who@example.com', password: PASSWORD } })
    expect(unknown.json()).toEqual(wrong.json())

    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'OPS@example.com', password: PASSWORD } })
    expect(login.statusCode).toBe(200)
    const cookie = login.headers['set-cookie'] as string
    expect(cookie).toMatch(/^lectern_session=[\w-]{43}; /)
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Strict')
    expect(cookie).not.toContain('Secure')
    const token = /lectern_session=([\w-]+)/.exec(cookie)![1]
    expect((await app.runtime.store.users.sessionUser(token))?.email).toBe('ops@example.com')
    expect(JSON.stringify(sqliteOf(app.runtime.store).prepare('SELECT * FROM sessions').all())).not.toContain(token)

    const logout = await app.inject({ method: 'POST', url: '/api/auth/logout', cookies: { lectern_session: token } })
    expect(logout.statusCode).toBe(204)
    expect(await app.runtime.store.users.sessionUser(token)).toBeUndefined()
  })

  it('expires sessions and refuses weak passwords and duplicate users', async () => {
    const app = await buildTestApp()
    const user = await app.runtime.store.users.create({ email: 'a@example.com', password: PASSWORD })
    const { token } = await app.runtime.store.users.startSession(user.id, Date.now() - 13 * 3600_000)
    expect(await app.runtime.store.users.sessionUser(token)).toBeUndefined()
    await expect(app.runtime.store.users.create({ email: 'b@example.com', password: 'short' })).rejects.toThrow(/at least 12/)
    await expect(app.runtime.store.users.create({ email: 'A@example.com', password: PASSWORD })).rejects.toThrow(/already exists/)
    await expect(app.runtime.store.users.create({ email: 'not-an-email', password: PASSWORD })).rejects.toThrow(/not an email/)
  })

  it('admin create reads the password from stdin when not on a terminal', async () => {
    const dataDir = await tmpDataDir()
    const created = await execa(process.execPath, ['bin/run.js', 'admin', 'create', 'ops@example.com', '--json', '--data-dir', dataDir], {
      cwd: PROJECT_ROOT,
      input: `${PASSWORD}\n`,
      reject: false,
    })
    expect(created.exitCode).toBe(0)
    expect(JSON.parse(created.stdout)).toMatchObject({ email: 'ops@example.com', role: 'admin' })
    const app = await buildTestApp({ dataDir, startWorker: false })
    expect(await app.runtime.store.users.verify('ops@example.com', PASSWORD)).toMatchObject({ role: 'admin' })
    const weak = await execa(process.execPath, ['bin/run.js', 'admin', 'create', 'x@example.com', '--data-dir', dataDir], {
      cwd: PROJECT_ROOT,
      input: 'short\n',
      reject: false,
    })
    expect(weak.exitCode).toBe(2)
    expect(weak.stderr).toContain('at least 12 characters')
  })
})
