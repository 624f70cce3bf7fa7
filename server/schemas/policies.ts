/**
 * JSON schemas of GET and PATCH /v2/policies, after Context7's openapi.json: PolicyResponse,
 * PatchPoliciesRequest, ListOperation and LicenseListOperation.
 */
import { MAX_LIST_ENTRIES } from '../../src/tenancy/policies.js'
import { SOURCE_TYPES } from '../../src/store/policies.js'

const SourceTypeList = { type: 'array', maxItems: SOURCE_TYPES.length, items: { type: 'string', enum: SOURCE_TYPES } } as const

const entries = (item: object) => ({ type: 'array', maxItems: MAX_LIST_ENTRIES, items: item }) as const

const ListOperation = {
  type: 'object',
  additionalProperties: false,
  properties: {
    add: entries({ type: 'string', minLength: 1, maxLength: 300 }),
    remove: entries({ type: 'string', minLength: 1, maxLength: 300 }),
    clear: { type: 'boolean' },
  },
} as const

const License = { type: 'string', pattern: '^[A-Za-z0-9.+\\-_]+$', maxLength: 64 } as const

const LicenseListOperation = {
  type: 'object',
  additionalProperties: false,
  properties: { add: entries(License), remove: entries(License), clear: { type: 'boolean' } },
} as const

const threshold = (minimum: number, maximum?: number) => ({ type: ['integer', 'null'], minimum, ...(maximum === undefined ? {} : { maximum }) }) as const

export const PatchPoliciesBody = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    sourceTypes: {
      type: 'object',
      additionalProperties: false,
      properties: { enable: SourceTypeList, disable: SourceTypeList },
    },
    libraryFilters: {
      type: 'object',
      additionalProperties: false,
      properties: {
        mode: { type: ['string', 'null'], enum: ['quality', 'select', null] },
        quality: {
          type: 'object',
          additionalProperties: false,
          properties: {
            requireVerified: { type: 'boolean' },
            minTrustScore: threshold(0, 10),
            maxAgeDays: threshold(1),
            blockedLibraries: ListOperation,
            exceptedLibraries: ListOperation,
            repoFilters: {
              type: 'object',
              additionalProperties: false,
              properties: { minStars: threshold(0), allowedLicenses: LicenseListOperation },
            },
            websiteFilters: {
              type: 'object',
              additionalProperties: false,
              properties: { minBacklinks: threshold(0), minReferringDomains: threshold(0), minOrganicTraffic: threshold(0) },
            },
          },
        },
        select: { type: 'object', additionalProperties: false, properties: { allowedLibraries: ListOperation } },
      },
    },
  },
} as const

const strings = { type: 'array', items: { type: 'string' } } as const
const nullableInteger = { type: ['integer', 'null'] } as const
const required = (properties: Record<string, unknown>) => ({ type: 'object', required: Object.keys(properties), properties }) as const

export const PolicyResponse = required({
  sourceTypes: required(Object.fromEntries(SOURCE_TYPES.map((type) => [type, required({ enabled: { type: 'boolean' } })]))),
  libraryFilters: required({
    mode: { type: ['string', 'null'] },
    quality: required({
      requireVerified: { type: 'boolean' },
      minTrustScore: nullableInteger,
      maxAgeDays: nullableInteger,
      blockedLibraries: strings,
      exceptedLibraries: strings,
      repoFilters: required({ minStars: nullableInteger, allowedLicenses: strings }),
      websiteFilters: required({ minBacklinks: nullableInteger, minReferringDomains: nullableInteger, minOrganicTraffic: nullableInteger }),
    }),
    select: required({ allowedLibraries: strings }),
  }),
  accessibleLibraryCount: { type: 'integer' },
})
