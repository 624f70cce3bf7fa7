/** JSON schemas of the audit log's routes (admin): the filters, and the events (which keeps anything else out of them). */
import { ACTOR_KINDS, AUDIT_OUTCOMES } from '../../src/store/audit.js'

const FILTERS = {
  since: { type: 'string', minLength: 1, maxLength: 40 },
  until: { type: 'string', minLength: 1, maxLength: 40 },
  action: { type: 'string', pattern: '^[a-z]+(\\.[a-z]+)*$', maxLength: 64 },
  actor: { type: 'string', minLength: 1, maxLength: 320 },
  target: { type: 'string', minLength: 1, maxLength: 320 },
  outcome: { type: 'string', enum: AUDIT_OUTCOMES },
} as const

export const AuditQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...FILTERS,
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    cursor: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  },
} as const

export const AuditExportQuery = { type: 'object', additionalProperties: false, properties: FILTERS } as const

export const AuditEventSchema = {
  type: 'object',
  required: ['id', 'at', 'action', 'outcome', 'actor', 'address', 'target', 'details'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    at: { type: 'string' },
    action: { type: 'string' },
    outcome: { type: 'string', enum: AUDIT_OUTCOMES },
    actor: {
      type: 'object',
      required: ['kind', 'name'],
      additionalProperties: false,
      properties: { kind: { type: 'string', enum: ACTOR_KINDS }, name: { type: ['string', 'null'] } },
    },
    address: { type: ['string', 'null'] },
    target: { type: ['string', 'null'] },
    details: { type: 'object', additionalProperties: true },
  },
} as const

export const AuditPageSchema = {
  type: 'object',
  required: ['events', 'nextCursor'],
  additionalProperties: false,
  properties: { events: { type: 'array', items: AuditEventSchema }, nextCursor: { type: ['integer', 'null'] } },
} as const
