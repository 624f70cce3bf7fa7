/**
 * Who is signed in, and the first run: the dashboard asks `GET /api/session` on every load to
 * show the setup page (no admin yet), the sign-in page or itself; `POST /api/setup` creates the
 * first admin for the holder of the setup token (src/install/setup.ts) and signs them in.
 */
import type { FastifyInstance } from 'fastify'
import { audit } from '../../src/audit/log.js'
import { settingsInForce, type SsoSource } from '../../src/sso/configuration.js'
import { completeSetup, needsSetup } from '../../src/install/setup.js'
import { APP_VERSION } from '../../src/install/version.js'
import { startSession } from '../plugins/session.js'
import { teamView } from './team-view.js'

const SetupBody = {
  type: 'object',
  required: ['token', 'email', 'password'],
  additionalProperties: false,
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 200 },
    email: { type: 'string', minLength: 3, maxLength: 320 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const

export default async function session(app: FastifyInstance, options: { sso: SsoSource }): Promise<void> {
  const cloud = app.lecternOptions.config.mode === 'cloud'
  // Asked on every dashboard load: not counted against the address's anonymous requests.
  app.get('/session', { config: { rateLimited: false } }, async (request) => {
    const { store } = app.runtime
    const sso = await settingsInForce(options.sso, request.log)
    return {
      user: request.user ? { email: request.user.email, role: request.user.role } : null,
      // Cloud: whether the address is confirmed, and the teamspaces for the dashboard's switcher.
      ...(cloud && request.user ? { emailVerified: request.user.emailVerified, teams: (await store.teams.membershipsOf(request.user.id)).map(teamView) } : {}),
      setupRequired: await needsSetup(store),
      // On-premise single sign-on: what the sign-in page offers.
      ...(sso ? { sso: { label: sso.label, passwordSignIn: sso.passwordSignIn } } : {}),
      mode: app.lecternOptions.config.mode,
      version: APP_VERSION,
    }
  })
  app.post<{ Body: { token: string; email: string; password: string } }>('/setup', { schema: { body: SetupBody } }, async (request, reply) => {
    const { store } = app.runtime
    const user = await completeSetup(store, store.paths, request.body)
    const { expiresAt } = await startSession(request, reply, store.users, user)
    const context = { actor: { kind: 'user' as const, name: user.email }, address: request.ip }
    await audit(store, context, 'user.created', user.email, { role: user.role, via: 'setup' })
    await audit(store, context, 'signin.succeeded', user.email, { method: 'setup' })
    return { email: user.email, role: user.role, expiresAt }
  })
}
