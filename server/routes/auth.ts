import type { FastifyInstance } from 'fastify'
import { audit } from '../../src/audit/log.js'
import { settingsInForce, type SsoSource } from '../../src/sso/configuration.js'
import { isBreakGlass } from '../../src/sso/oidc.js'
import type { SsoSettings } from '../../src/config.js'
import type { User } from '../../src/store/users.js'
import { LecternError } from '../../src/errors.js'
import { acceptPendingInvitations } from '../../src/tenancy/invitations.js'
import { auditContext, auditRefusal } from '../audit-context.js'
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
export default async function auth(app: FastifyInstance, options: { sso: SsoSource }): Promise<void> {
  /** With single sign-on on and passwords off, only the break-glass admins sign in with one (sso.breakGlassAdmins). */
  const passwordSignInAllowed = (sso: SsoSettings | undefined, email: string, user?: User) =>
    sso === undefined || sso.passwordSignIn || (isBreakGlass(sso.breakGlassAdmins, email) && (user === undefined || user.role === 'admin'))
  app.post<{ Body: { email: string; password: string } }>('/auth/login', { schema: { body: LoginBody }, config: { rateLimited: false } }, async (request, reply) => {
    await app.rateLimiter.takeSignIn(request, reply, request.body.email)
    const { users } = app.runtime.store
    const { email } = request.body
    // What the audit log names: the email tried, never what was typed in its place (a password, by mistake).
    const tried = /^[^\s@]+@[^\s@]+$/.test(email.trim()) ? email.trim() : null
    const sso = await settingsInForce(options.sso, request.log)
    // Refused before the password is checked: the answer says nothing of whether it was right.
    if (!passwordSignInAllowed(sso, email)) {
      await auditRefusal(request, 'signin.failed', tried, { method: 'password', reason: 'password sign-in is off' }, { actor: { kind: 'anonymous', name: null }, address: request.ip })
      throw new LecternError('forbidden', `Password sign-in is off on this install: sign in with ${sso?.label}.`)
    }
    const found = await users.verify(email, request.body.password)
    // A break-glass email that is not an admin's signs in no more than a wrong password does.
    const user = found && passwordSignInAllowed(sso, email, found) ? found : undefined
    if (!user) {
      await auditRefusal(request, 'signin.failed', tried, { method: 'password' }, { actor: { kind: 'anonymous', name: null }, address: request.ip })
      throw new LecternError('not_authenticated', 'Wrong email or password.')
    }
    // The reference's "automatically added once they sign in": invitations to this (verified) address.
    if (app.lecternOptions.config.mode === 'cloud') await acceptPendingInvitations(app.runtime.store, user)
    const { expiresAt } = await startSession(request, reply, users, user)
    await audit(app.runtime.store, { actor: { kind: 'user', name: user.email }, address: request.ip }, 'signin.succeeded', user.email, { method: 'password' })
    return { email: user.email, role: user.role, expiresAt }
  })
  app.post('/auth/logout', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE]
    if (token) await app.runtime.store.users.endSession(token)
    if (request.user) await audit(app.runtime.store, await auditContext(request, app.runtime.store.users), 'signout', request.user.email)
    reply.clearCookie(SESSION_COOKIE, { path: '/' })
    return reply.code(204).send()
  })
}
