/** JSON schemas of the push webhooks (on-premise). */
import { WEBHOOK_PROVIDERS } from '../../src/webhooks/providers.js'

export const WebhookParams = {
  type: 'object',
  required: ['provider'],
  properties: { provider: { type: 'string', enum: WEBHOOK_PROVIDERS } },
  additionalProperties: false,
} as const

export const WebhookOutcomeSchema = {
  type: 'object',
  required: ['provider', 'delivery', 'event', 'status', 'repository', 'branch', 'libraries', 'gitops'],
  properties: {
    provider: { type: 'string' },
    delivery: { type: 'string' },
    event: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'ignored'] },
    reason: { type: 'string' },
    repository: { type: ['string', 'null'] },
    branch: { type: ['string', 'null'] },
    libraries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['libraryId', 'state', 'job'],
        properties: {
          libraryId: { type: 'string' },
          state: { type: 'string', enum: ['queued', 'already queued', 'after the running job', 'failed'] },
          job: { type: ['integer', 'null'] },
          reason: { type: 'string' },
        },
      },
    },
    gitops: { type: 'boolean' },
  },
} as const
