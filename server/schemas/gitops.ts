/** JSON schemas of GitOps over HTTP (on-premise). */
import { MANIFEST_TYPES } from '../../src/gitops/manifest.js'
import { SYNC_ACTIONS, SYNC_TRIGGERS } from '../../src/gitops/reconcile.js'

export const GitOpsConfigSchema = {
  type: 'object',
  required: ['repoUrl', 'path', 'branch', 'prune', 'enabled', 'schedule'],
  properties: { repoUrl: { type: 'string' }, path: { type: 'string' }, branch: { type: 'string' }, prune: { type: 'boolean' }, enabled: { type: 'boolean' }, schedule: { type: 'string' } },
} as const

export const GitOpsConfigBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    repoUrl: { type: 'string', maxLength: 2000 },
    path: { type: 'string', minLength: 1, maxLength: 500 },
    branch: { type: 'string', maxLength: 250 },
    prune: { type: 'boolean' },
    enabled: { type: 'boolean' },
    schedule: { type: 'string', maxLength: 100 },
  },
} as const

export const ReconcileQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { dryRun: { type: 'boolean' }, force: { type: 'boolean' } },
} as const

export const SyncResultSchema = {
  type: 'object',
  required: ['at', 'trigger', 'dryRun', 'commit', 'upToDate', 'created', 'updated', 'unchanged', 'skipped', 'pruned', 'failed', 'entries'],
  properties: {
    at: { type: 'string' },
    trigger: { type: 'string', enum: SYNC_TRIGGERS },
    dryRun: { type: 'boolean' },
    commit: { type: 'string' },
    upToDate: { type: 'boolean' },
    created: { type: 'integer' },
    updated: { type: 'integer' },
    unchanged: { type: 'integer' },
    skipped: { type: 'integer' },
    pruned: { type: 'integer' },
    failed: { type: 'integer' },
    entries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['libraryId', 'type', 'action'],
        properties: {
          libraryId: { type: 'string' },
          type: { type: ['string', 'null'], enum: [...MANIFEST_TYPES, null] },
          action: { type: 'string', enum: [...SYNC_ACTIONS] },
          reason: { type: 'string' },
          jobId: { type: 'integer' },
        },
      },
    },
  },
} as const

export const GitOpsStatusSchema = {
  type: 'object',
  required: ['config', 'managed', 'lastSync', 'lastError'],
  properties: {
    config: GitOpsConfigSchema,
    managed: { type: 'array', items: { type: 'object', required: ['libraryId', 'syncedAt'], properties: { libraryId: { type: 'string' }, syncedAt: { type: 'string' } } } },
    lastSync: { anyOf: [SyncResultSchema, { type: 'null' }] },
    lastError: { anyOf: [{ type: 'object', required: ['at', 'message'], properties: { at: { type: 'string' }, message: { type: 'string' } } }, { type: 'null' }] },
  },
} as const
