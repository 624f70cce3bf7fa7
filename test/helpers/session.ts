/** Signed-in users for the admin endpoints: a user of the role, logged in through POST /api/auth/login. */
import type { FastifyInstance } from 'fastify'
import type { Role } from '../../src/store/users.js'

export const TEST_PASSWORD = 'correct horse battery staple'

/** Logs in (creating the user the first time) and returns the session cookie to send with `inject`. */
export async function signIn(app: FastifyInstance, role: Role = 'admin', email = `${role}@example.com`, password = TEST_PASSWORD): Promise<{ lectern_session: string }> {
  const { users } = app.runtime.store
  if (!(await users.list()).some((u) => u.email === email)) await users.create({ email, password, role })
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } })
  if (login.statusCode !== 200) throw new Error(`login of ${email} failed: ${login.body}`)
  return { lectern_session: login.cookies.find((c) => c.name === 'lectern_session')!.value }
}
