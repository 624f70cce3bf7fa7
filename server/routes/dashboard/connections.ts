/**
 * Stored connections (admin session): the Confluence sites, Notion workspaces and private git
 * hosts that sources read through. Tokens are write-only: sealed when stored, never answered.
 */
import type { FastifyInstance } from 'fastify'
import { addConnection, type ConnectionInput } from '../../../src/connections.js'
import { CONNECTION_KINDS } from '../../../src/store/connections.js'

const ConnectionBody = {
  type: 'object',
  required: ['kind', 'name', 'token'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: [...CONNECTION_KINDS] },
    name: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$' },
    token: { type: 'string', minLength: 1, maxLength: 4096 },
    site: { type: 'string', minLength: 1, maxLength: 2048 },
    email: { type: 'string', minLength: 3, maxLength: 320 },
    host: { type: 'string', minLength: 1, maxLength: 300 },
    apiUrl: { type: 'string', minLength: 1, maxLength: 2048 },
  },
} as const

const ConnectionView = {
  type: 'object',
  properties: { id: { type: 'integer' }, kind: { type: 'string' }, name: { type: 'string' }, baseUrl: { type: 'string' }, email: { type: ['string', 'null'] }, createdAt: { type: 'string' } },
} as const

const NameParams = { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 100 } } } as const

export default async function connections(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const admin = { access: 'admin' as const }

  app.get('/connections', { config: admin, schema: { response: { 200: { type: 'object', properties: { connections: { type: 'array', items: ConnectionView } } } } } }, async () => ({
    connections: store.connections.list(),
  }))

  app.post<{ Body: ConnectionInput }>('/connections', { config: admin, schema: { body: ConnectionBody, response: { 201: ConnectionView } } }, async (request, reply) =>
    reply.code(201).send(addConnection(store, request.body)),
  )

  app.delete<{ Params: { name: string } }>('/connections/:name', { config: admin, schema: { params: NameParams, response: { 200: ConnectionView } } }, async (request) =>
    store.connections.remove(request.params.name),
  )
}
