/**
 * Single sign-on's configuration from the dashboard (on-premise, admin session; src/sso/configuration.ts):
 * read it, save it (after the provider answered discovery), or remove it. A configuration in
 * lectern.yaml or the environment wins and is shown read-only.
 */
import type { FastifyInstance } from 'fastify'
import { removeSsoConfiguration, saveSsoConfiguration, viewSsoConfiguration } from '../../src/sso/configuration.js'
import { auditContext } from '../audit-context.js'
import { SsoConfigurationBody, SsoConfigurationViewSchema } from '../schemas/sso.js'

export default async function ssoSettings(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const { config } = app.lecternOptions
  const admin = { access: 'admin' as const }
  const response = { 200: SsoConfigurationViewSchema }

  app.get('/settings/sso', { config: admin, schema: { response } }, async () => await viewSsoConfiguration(store, config))
  app.put('/settings/sso', { config: admin, schema: { body: SsoConfigurationBody, response } }, async (request) =>
    await saveSsoConfiguration(store, config, await auditContext(request, store.users), request.body),
  )
  app.delete('/settings/sso', { config: admin, schema: { response } }, async (request) => await removeSsoConfiguration(store, config, await auditContext(request, store.users)))
}
