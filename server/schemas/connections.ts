/**
 * JSON schemas of stored connections, the install's (server/routes/dashboard/connections.ts) and
 * a teamspace's (server/routes/team-connections.ts): the token goes in, never out.
 */
import { CONNECTION_KINDS } from '../../src/store/connections.js'

export const ConnectionBody = {
  type: 'object',
  required: ['kind', 'name', 'token'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: [...CONNECTION_KINDS] },
    name: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$' },
    token: { type: 'string', minLength: 1, maxLength: 16384 },
    site: { type: 'string', minLength: 1, maxLength: 2048 },
    email: { type: 'string', minLength: 3, maxLength: 320 },
    host: { type: 'string', minLength: 1, maxLength: 300 },
    apiUrl: { type: 'string', minLength: 1, maxLength: 2048 },
    knownHosts: { type: 'string', minLength: 1, maxLength: 65536 },
  },
} as const

export const ConnectionView = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    kind: { type: 'string' },
    name: { type: 'string' },
    baseUrl: { type: 'string' },
    email: { type: ['string', 'null'] },
    webhook: { type: 'boolean' },
    publicKey: { type: ['string', 'null'] },
    createdAt: { type: 'string' },
  },
} as const

/** A webhook secret to store; without one, Lectern makes one and answers it this once. */
export const WebhookSecretBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { secret: { type: 'string', minLength: 1, maxLength: 512 } },
} as const

export const WebhookSecretChangeSchema = {
  type: 'object',
  required: ['connection'],
  properties: { connection: ConnectionView, secret: { type: 'string' } },
} as const

export const ConnectionListSchema = { type: 'object', properties: { connections: { type: 'array', items: ConnectionView } } } as const

const name = { type: 'string', minLength: 1, maxLength: 100 } as const

export const NameParams = { type: 'object', required: ['name'], properties: { name } } as const

export const TeamConnectionParams = {
  type: 'object',
  additionalProperties: false,
  required: ['team', 'name'],
  properties: { team: { type: 'integer', minimum: 1 }, name },
} as const

/** A Confluence space or Notion pages added through one of a teamspace's connections, from its dashboard. */
export const TeamSourceBody = {
  type: 'object',
  additionalProperties: false,
  required: ['connection'],
  properties: {
    connection: name,
    repoUrl: { type: 'string', minLength: 1, maxLength: 2048 },
    spaceKey: { type: 'string', minLength: 1, maxLength: 255 },
    pageIds: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 36 } },
    title: { type: 'string', maxLength: 200 },
    description: { type: 'string', maxLength: 2000 },
  },
} as const
