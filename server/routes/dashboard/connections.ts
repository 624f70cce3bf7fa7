/**
 * Stored connections (admin session): the Confluence sites, Notion workspaces and private git
 * hosts that sources read through. Tokens are write-only: sealed when stored, never answered. On
 * premise a git connection also holds the secret its host signs push webhooks with: made here and
 * shown once, or given, then as write-only as the token.
 */
import type { FastifyInstance } from 'fastify'
import { addConnection, removeConnection, type ConnectionInput } from '../../../src/sources/connections.js'
import { INSTALL_CONNECTIONS } from '../../../src/store/connections.js'
import { removeWebhookSecret, setWebhookSecret } from '../../../src/webhooks/secret.js'
import { auditContext } from '../../audit-context.js'
import { ConnectionBody, ConnectionListSchema, ConnectionView, NameParams, WebhookSecretBody, WebhookSecretChangeSchema } from '../../schemas/connections.js'

export default async function connections(app: FastifyInstance, options: { webhooks: boolean }): Promise<void> {
  const { store } = app.runtime
  const admin = { access: 'admin' as const }

  app.get('/connections', { config: admin, schema: { response: { 200: ConnectionListSchema } } }, async () => ({
    connections: await store.connections.list(INSTALL_CONNECTIONS),
  }))

  app.post<{ Body: ConnectionInput }>('/connections', { config: admin, schema: { body: ConnectionBody, response: { 201: ConnectionView } } }, async (request, reply) =>
    reply.code(201).send(await addConnection(store, await auditContext(request, store.users), INSTALL_CONNECTIONS, request.body, app.runtime.guard)),
  )

  app.delete<{ Params: { name: string } }>('/connections/:name', { config: admin, schema: { params: NameParams, response: { 200: ConnectionView } } }, async (request) =>
    await removeConnection(store, await auditContext(request, store.users), INSTALL_CONNECTIONS, request.params.name),
  )

  if (!options.webhooks) return
  app.put<{ Params: { name: string }; Body: { secret?: string } }>(
    '/connections/:name/webhook',
    { config: admin, schema: { params: NameParams, body: WebhookSecretBody, response: { 200: WebhookSecretChangeSchema } } },
    async (request) => await setWebhookSecret(store, await auditContext(request, store.users), request.params.name, request.body?.secret),
  )
  app.delete<{ Params: { name: string } }>('/connections/:name/webhook', { config: admin, schema: { params: NameParams, response: { 200: ConnectionView } } }, async (request) =>
    (await removeWebhookSecret(store, await auditContext(request, store.users), request.params.name)).connection,
  )
}
