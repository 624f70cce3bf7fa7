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
