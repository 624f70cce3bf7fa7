/**
 * Admin sessions: `POST /api/auth/login` sets an HttpOnly, SameSite=Strict cookie (Secure when
 * the request came over TLS); routes that need an admin say so with `config: { access: 'admin' }`
 * (see access.ts).
 */
import cookie from '@fastify/cookie'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { LecternError } from '../../src/errors.js'
import type { User, UsersRepository } from '../../src/store/users.js'

export const SESSION_COOKIE = 'lectern_session'

/** Starts a session for the user and sets its cookie on the reply (login, first-run setup). */
export async function startSession(request: FastifyRequest, reply: FastifyReply, users: UsersRepository, user: User): Promise<{ expiresAt: string }> {
  const session = await users.startSession(user.id)
  reply.setCookie(SESSION_COOKIE, session.token, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    expires: new Date(session.expiresAt),
  })
  return { expiresAt: session.expiresAt }
}

declare module 'fastify' {
  interface FastifyRequest {
    user: User | null
  }
  interface FastifyInstance {
    requireAdmin: (request: FastifyRequest) => Promise<void>
  }
}

async function session(app: FastifyInstance, options: { users: UsersRepository }): Promise<void> {
  await app.register(cookie)
  app.decorateRequest('user', null)
  app.addHook('onRequest', async (request) => {
    const token = request.cookies[SESSION_COOKIE]
    if (token) request.user = await options.users.sessionUser(token) ?? null
  })
  app.decorate('requireAdmin', async (request: FastifyRequest) => {
    if (!request.user) throw new LecternError('not_authenticated', 'This endpoint needs an admin session: log in with POST /api/auth/login.')
    if (request.user.role !== 'admin') throw new LecternError('forbidden', 'This endpoint is for admins only.')
  })
}

export default fp(session, { name: 'lectern-session', dependencies: ['lectern-errors'] })
