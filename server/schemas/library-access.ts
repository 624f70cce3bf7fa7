/** JSON schemas of library access control (on-premise, admin session). */
import { LIBRARY_ACCESS } from '../../src/store/library-access.js'

const GranteesSchema = {
  users: {
    type: 'array',
    items: { type: 'object', required: ['userId', 'email'], properties: { userId: { type: 'integer' }, email: { type: 'string' } } },
  },
  groups: { type: 'array', items: { type: 'string' } },
} as const

/** A library: `access` its own rule; `namespace` the rule deciding it when it has none; the grantees the deciding rule's. */
export const LibraryAccessEntrySchema = {
  type: 'object',
  required: ['libraryId', 'title', 'access', 'effective', 'namespace', 'users', 'groups'],
  properties: {
    libraryId: { type: 'string' },
    title: { type: 'string' },
    access: { type: 'string', enum: [...LIBRARY_ACCESS] },
    effective: { type: 'string', enum: ['everyone', 'restricted'] },
    namespace: { type: ['string', 'null'] },
    ...GranteesSchema,
  },
} as const

/** A namespace's rule (`default`: none), and how many libraries it governs. */
export const NamespaceAccessSchema = {
  type: 'object',
  required: ['namespace', 'access', 'effective', 'users', 'groups', 'libraries'],
  properties: {
    namespace: { type: 'string' },
    access: { type: 'string', enum: [...LIBRARY_ACCESS] },
    effective: { type: 'string', enum: ['everyone', 'restricted'] },
    ...GranteesSchema,
    libraries: { type: 'integer' },
  },
} as const

export const LibraryAccessViewSchema = {
  type: 'object',
  required: ['restrictNewLibraries', 'namespaces', 'libraries'],
  properties: {
    restrictNewLibraries: { type: 'boolean' },
    namespaces: { type: 'array', items: NamespaceAccessSchema },
    libraries: { type: 'array', items: LibraryAccessEntrySchema },
  },
} as const

const SetAccessProperties = {
  access: { type: 'string', enum: [...LIBRARY_ACCESS] },
  users: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 320 } },
  groups: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 200 } },
} as const

export const SetAccessBody = { type: 'object', required: ['access'], additionalProperties: false, properties: SetAccessProperties } as const

/** A namespace's rule: `default` removes it. */
export const SetNamespaceAccessBody = {
  type: 'object',
  required: ['namespace', 'access'],
  additionalProperties: false,
  properties: { namespace: { type: 'string', minLength: 1, maxLength: 300 }, ...SetAccessProperties },
} as const

export const DefaultAccessBody = {
  type: 'object',
  required: ['restrictNewLibraries'],
  additionalProperties: false,
  properties: { restrictNewLibraries: { type: 'boolean' } },
} as const
