import type { FastifyInstance } from 'fastify'
import { LecternError } from '../../src/errors.js'
import { acceptPendingInvitations } from '../../src/tenancy/invitations.js'
import { SESSION_COOKIE, startSession } from '../plugins/session.js'

const LoginBody = {
  type: 'object',
  required: ['email', 'password'],
  properties: { email: { type: 'string', minLength: 3, maxLength: 320 }, password: { type: 'string', minLength: 1, maxLength: 1024 } },
} as const

/**
 * Sign-in and sign-out. A sign-in is counted under its own limit, per account and client address
 * together (rateLimit.signIn), not the address's anonymous one: anonymous traffic behind the
 * admin's NAT or proxy never refuses the admin's sign-in, and guesses at one account from one
 * address do not refuse it elsewhere.
 */
export default async function auth(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { email: string; password: string } }>('/auth/login', { schema: { body: LoginBody }, config: { rateLimited: false } }, async (request, reply) => {
    await app.rateLimiter.takeSignIn(request, reply, request.body.email)
    const { users } = app.runtime.store
    const user = await users.verify(request.body.email, request.body.password)
    if (!user) throw new LecternError('not_authenticated', 'Wrong email or password.')
    // The reference's "automatically added once they sign in": invitations to this (verified) address.
    if (app.lecternOptions.config.mode === 'cloud') await acceptPendingInvitations(app.runtime.store, user)
    const { expiresAt } = await startSession(request, reply, users, user)
    return { email: user.email, role: user.role, expiresAt }
  })
  app.post('/auth/logout', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE]
    if (token) await app.runtime.store.users.endSession(token)
    reply.clearCookie(SESSION_COOKIE, { path: '/' })
    return reply.code(204).send()
  })
}
