/** Request schemas of the backup routes; bodies are checked in full by src/backup/config.ts. */
export const ArchiveNameParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', pattern: '^lectern-backup-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.tar\\.gz$' } },
} as const

export const RestoreQuery = {
  type: 'object',
  properties: { dryRun: { type: 'boolean', default: false } },
} as const

export const ConfigBody = { type: 'object' } as const

/** The destination part of a config update; checked in full by src/backup/config.ts. */
export const TestDestinationBody = { type: 'object', required: ['type'] } as const

export const NextRunsQuery = {
  type: 'object',
  required: ['expression'],
  properties: {
    expression: { type: 'string', minLength: 1, maxLength: 200 },
    timeZone: { type: 'string', minLength: 1, maxLength: 100, default: 'UTC' },
  },
  additionalProperties: false,
} as const
