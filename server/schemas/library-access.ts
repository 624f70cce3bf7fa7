/** JSON schemas of library access control (on-premise, admin session). */
import { LIBRARY_ACCESS } from '../../src/store/library-access.js'

export const LibraryAccessEntrySchema = {
  type: 'object',
  required: ['libraryId', 'title', 'access', 'effective', 'users', 'groups'],
  properties: {
    libraryId: { type: 'string' },
    title: { type: 'string' },
    access: { type: 'string', enum: [...LIBRARY_ACCESS] },
    effective: { type: 'string', enum: ['everyone', 'restricted'] },
    users: {
      type: 'array',
      items: { type: 'object', required: ['userId', 'email'], properties: { userId: { type: 'integer' }, email: { type: 'string' } } },
    },
    groups: { type: 'array', items: { type: 'string' } },
  },
} as const

export const LibraryAccessViewSchema = {
  type: 'object',
  required: ['restrictNewLibraries', 'libraries'],
  properties: { restrictNewLibraries: { type: 'boolean' }, libraries: { type: 'array', items: LibraryAccessEntrySchema } },
} as const

export const SetAccessBody = {
  type: 'object',
  required: ['access'],
  additionalProperties: false,
  properties: {
    access: { type: 'string', enum: [...LIBRARY_ACCESS] },
    users: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 320 } },
    groups: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 200 } },
  },
} as const

export const DefaultAccessBody = {
  type: 'object',
  required: ['restrictNewLibraries'],
  additionalProperties: false,
  properties: { restrictNewLibraries: { type: 'boolean' } },
} as const
