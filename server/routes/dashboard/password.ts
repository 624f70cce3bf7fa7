/**
 * Changing one's own password, for any signed-in user (the operator, an on-premise member, a
 * cloud tenant): the current password proves it is them, and every other session of the user
 * ends with it. It changes only the caller's own password, so it needs no admin.
 */
import type { FastifyInstance } from 'fastify'
import { PasswordBody } from '../../schemas/dashboard.js'
import { SESSION_COOKIE } from '../../plugins/session.js'

export default async function password(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { currentPassword: string; newPassword: string } }>(
    '/auth/password',
    { config: { access: 'session' }, schema: { body: PasswordBody } },
    async (request, reply) => {
      const { currentPassword, newPassword } = request.body
      // access: 'session' let the request in, so it has a user and the cookie that names them.
      await app.runtime.store.users.changePassword(request.user!.id, currentPassword, newPassword, request.cookies[SESSION_COOKIE]!)
      return reply.code(204).send()
    },
  )
}
