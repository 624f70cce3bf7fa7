/**
 * Self-service accounts (cloud only): sign-up, email verification, password reset, reading and
 * accepting an invitation. Tokens travel in JSON bodies, never in a URL, so no request log holds one. Sign-in
 * itself is `POST /api/auth/login` (auth.ts), as for the operator.
 */
import type { FastifyInstance } from 'fastify'
import { requestPasswordReset, resetPassword, sendVerification, signUp, verifyEmail } from '../../src/tenancy/accounts.js'
import { acceptInvitation, previewInvitation } from '../../src/tenancy/invitations.js'
import { EmailBody, InvitationPreviewSchema, ResetBody, SignupBody, TokenBody } from '../schemas/teams.js'
import { teamView } from './team-view.js'

const CHECK_MAIL = 'If the address can receive mail, a message with a link is on its way; open it to go on.'

export default async function accounts(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const session = { access: 'session' as const }

  app.post<{ Body: { email: string; password: string } }>('/auth/signup', { schema: { body: SignupBody } }, async (request, reply) => {
    await signUp(store, app.mailer, request.body)
    return reply.code(202).send({ message: CHECK_MAIL })
  })

  app.post<{ Body: { token: string } }>('/auth/verify', { schema: { body: TokenBody } }, async (request) => {
    const user = await verifyEmail(store, request.body.token)
    return { email: user.email, emailVerified: user.emailVerified }
  })

  app.post('/auth/verify-resend', { config: session }, async (request, reply) => {
    await sendVerification(store, app.mailer, request.user!)
    return reply.code(202).send({ message: CHECK_MAIL })
  })

  app.post<{ Body: { email: string } }>('/auth/reset-request', { schema: { body: EmailBody } }, async (request, reply) => {
    await requestPasswordReset(store, app.mailer, request.body.email)
    return reply.code(202).send({ message: CHECK_MAIL })
  })

  app.post<{ Body: { token: string; password: string } }>('/auth/reset', { schema: { body: ResetBody } }, async (request, reply) => {
    await resetPassword(store, request.body.token, request.body.password)
    return reply.code(204).send()
  })

  app.post<{ Body: { token: string } }>('/invitations/peek', { schema: { body: TokenBody, response: { 200: InvitationPreviewSchema } } }, async (request) =>
    await previewInvitation(store, request.body.token),
  )

  app.post<{ Body: { token: string } }>('/invitations/accept', { config: session, schema: { body: TokenBody } }, async (request) =>
    teamView(await acceptInvitation(store, request.user!, request.body.token)),
  )
}
