/**
 * Stored connections (admin session): the Confluence sites, Notion workspaces and private git
 * hosts that sources read through. Tokens are write-only: sealed when stored, never answered.
 */
import type { FastifyInstance } from 'fastify'
import { addConnection, type ConnectionInput } from '../../../src/sources/connections.js'
import { INSTALL_CONNECTIONS } from '../../../src/store/connections.js'
import { ConnectionBody, ConnectionListSchema, ConnectionView, NameParams } from '../../schemas/connections.js'

export default async function connections(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const admin = { access: 'admin' as const }

  app.get('/connections', { config: admin, schema: { response: { 200: ConnectionListSchema } } }, async () => ({
    connections: await store.connections.list(INSTALL_CONNECTIONS),
  }))

  app.post<{ Body: ConnectionInput }>('/connections', { config: admin, schema: { body: ConnectionBody, response: { 201: ConnectionView } } }, async (request, reply) =>
    reply.code(201).send(await addConnection(store, INSTALL_CONNECTIONS, request.body, app.runtime.guard)),
  )

  app.delete<{ Params: { name: string } }>('/connections/:name', { config: admin, schema: { params: NameParams, response: { 200: ConnectionView } } }, async (request) =>
    await store.connections.remove(INSTALL_CONNECTIONS, request.params.name),
  )
}
