/**
 * JSON schemas of the dashboard API (libraries, versions, keys, own password): what each route
 * takes, and what it answers, so a field that is not listed here (a token, a hash) never leaves.
 */

const nullable = (type: string) => ({ type: [type, 'null'] })

/**
 * A library ID travels as two path segments; src/library/id.ts decides whether they form one.
 * The router refuses a segment over 100 characters (maxParamLength), the length of an ID segment
 * and of a version tag.
 */
export const LibraryParams = {
  type: 'object',
  required: ['owner', 'name'],
  properties: { owner: { type: 'string', minLength: 1 }, name: { type: 'string', minLength: 1 } },
} as const

export interface LibraryParamsType {
  owner: string
  name: string
}

export const VersionParams = {
  type: 'object',
  required: ['owner', 'name', 'tag'],
  properties: { ...LibraryParams.properties, tag: { type: 'string', minLength: 1 } },
} as const

export interface VersionParamsType extends LibraryParamsType {
  tag: string
}

export const MAX_PAGE_SIZE = 100

export const LibrariesQuery = {
  type: 'object',
  properties: {
    q: { type: 'string', maxLength: 500 },
    page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
    pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 25 },
  },
} as const

export interface LibrariesQueryType {
  q?: string
  page: number
  pageSize: number
}

export const RenameBody = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 500 } },
} as const

export const AddVersionBody = {
  type: 'object',
  required: ['tag'],
  properties: { tag: { type: 'string', minLength: 1, maxLength: 100 } },
} as const

export const KeyParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1 } },
} as const

export const CreateKeyBody = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
} as const

export const PasswordBody = {
  type: 'object',
  required: ['currentPassword', 'newPassword'],
  properties: {
    currentPassword: { type: 'string', minLength: 1, maxLength: 1024 },
    // The strength rule is src/store/users.ts's, so its message is the one `lectern admin create` gives.
    newPassword: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const

const rowState = { type: 'string', enum: ['initial', 'queued', 'processing', 'finalized', 'error'] }

export const LibraryRowSchema = {
  type: 'object',
  required: ['id', 'title', 'description', 'sourceKind', 'sourceUrl', 'private', 'team', 'imported', 'state', 'progress', 'errorCode', 'errorMessage', 'snippets', 'tokens', 'updatedAt', 'versions', 'refreshable', 'refreshBlockedReason'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    sourceKind: { type: 'string' },
    sourceUrl: { type: 'string' },
    private: { type: 'boolean' },
    team: nullable('string'),
    imported: { type: 'boolean' },
    state: rowState,
    progress: nullable('string'),
    errorCode: nullable('string'),
    errorMessage: nullable('string'),
    snippets: { type: 'integer' },
    tokens: { type: 'integer' },
    updatedAt: nullable('string'),
    versions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tag', 'state', 'snippets', 'tokens', 'updatedAt'],
        properties: { tag: { type: 'string' }, state: rowState, snippets: { type: 'integer' }, tokens: { type: 'integer' }, updatedAt: { type: 'string' } },
      },
    },
    refreshable: { type: 'boolean' },
    refreshBlockedReason: nullable('string'),
  },
} as const

export const LibraryPageSchema = {
  type: 'object',
  required: ['libraries', 'total', 'page', 'pageSize'],
  properties: { libraries: { type: 'array', items: LibraryRowSchema }, total: { type: 'integer' }, page: { type: 'integer' }, pageSize: { type: 'integer' } },
} as const

export const RemovedLibrarySchema = {
  type: 'object',
  required: ['removed', 'sets'],
  properties: { removed: { type: 'string' }, sets: { type: 'integer' } },
} as const

export const RemovedVersionSchema = {
  type: 'object',
  required: ['removed', 'tag', 'sets'],
  properties: { removed: { type: 'string' }, tag: { type: 'string' }, sets: { type: 'integer' } },
} as const

export const QueuedVersionSchema = {
  type: 'object',
  required: ['libraryName', 'version', 'jobId'],
  properties: { libraryName: { type: 'string' }, version: { type: 'string' }, jobId: { type: 'integer' } },
} as const

const keyInfo = {
  id: { type: 'integer' },
  name: { type: 'string' },
  preview: { type: 'string' },
  createdAt: { type: 'string' },
}

export const KeySchema = {
  type: 'object',
  required: ['id', 'name', 'preview', 'createdAt', 'lastUsedAt', 'revokedAt'],
  properties: { ...keyInfo, lastUsedAt: nullable('string'), revokedAt: nullable('string') },
} as const

export const KeyListSchema = {
  type: 'object',
  required: ['keys'],
  properties: { keys: { type: 'array', items: KeySchema } },
} as const

/** The one answer that holds a key: the one creating it. */
export const CreatedKeySchema = {
  type: 'object',
  required: ['id', 'name', 'preview', 'createdAt', 'key'],
  properties: { ...keyInfo, key: { type: 'string' } },
} as const
