/** JSON schemas of the jobs routes (admin): requests, and the answers (which also keep anything else out of them). */

const STATE = '(queued|running|succeeded|failed)'

export const JobsQuery = {
  type: 'object',
  properties: {
    state: { type: 'string', pattern: `^${STATE}(,${STATE})*$`, default: 'queued,running,succeeded,failed' },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
  },
} as const

export interface JobsQueryType {
  state: string
  limit: number
}

export const JobParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
} as const

export interface JobParamsType {
  id: number
}

export const JobLogQuery = {
  type: 'object',
  properties: { after: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 } },
} as const

export interface JobLogQueryType {
  after: number
}

const nullable = (type: 'string' | 'integer') => ({ type: [type, 'null'] })

export const JobView = {
  type: 'object',
  required: ['id', 'kind', 'libraryId', 'version', 'state', 'position', 'progress', 'errorCode', 'errorMessage', 'createdAt', 'startedAt', 'finishedAt', 'elapsedMs', 'attempts', 'cancelRequestedAt', 'interrupted', 'warnings'],
  properties: {
    id: { type: 'integer' },
    kind: { type: 'string' },
    libraryId: nullable('string'),
    version: nullable('string'),
    state: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
    position: nullable('integer'),
    progress: nullable('string'),
    errorCode: nullable('string'),
    errorMessage: nullable('string'),
    createdAt: { type: 'string' },
    startedAt: nullable('string'),
    finishedAt: nullable('string'),
    elapsedMs: nullable('integer'),
    attempts: { type: 'integer' },
    cancelRequestedAt: nullable('string'),
    interrupted: { type: 'boolean' },
    warnings: { type: 'integer' },
  },
} as const

export const JobList = {
  type: 'object',
  required: ['jobs'],
  properties: { jobs: { type: 'array', items: JobView } },
} as const

export const JobLogLines = {
  type: 'object',
  required: ['lines'],
  properties: {
    lines: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'time', 'level', 'message'],
        properties: {
          id: { type: 'integer' },
          time: { type: 'string' },
          level: { type: 'string', enum: ['info', 'warn', 'error'] },
          message: { type: 'string' },
          fields: { type: 'object', additionalProperties: true },
        },
      },
    },
  },
} as const
