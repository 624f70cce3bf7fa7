/** JSON schemas of the library routes (search, context, add), after Context7's openapi.json. */
import { MAX_TOKENS, MIN_TOKENS } from '../../src/search/budget.js'

export const SearchQuery = {
  type: 'object',
  required: ['libraryName'],
  properties: {
    libraryName: { type: 'string', minLength: 1, maxLength: 500 },
    query: { type: 'string', maxLength: 500 },
    fast: { type: 'string', enum: ['true', 'false'] },
  },
} as const

export interface SearchQueryType {
  libraryName: string
  query?: string
}

export const ContextQuery = {
  type: 'object',
  required: ['libraryId', 'query'],
  properties: {
    libraryId: { type: 'string', minLength: 1, maxLength: 500 },
    // No minLength: an empty question is refused with the others that have no words (Retriever.getContext).
    query: { type: 'string', maxLength: 500 },
    type: { type: 'string', enum: ['json', 'txt'], default: 'txt' },
    tokens: { type: 'integer', minimum: MIN_TOKENS, maximum: MAX_TOKENS },
    fast: { type: 'string', enum: ['true', 'false'] },
  },
} as const

export interface ContextQueryType {
  libraryId: string
  query: string
  type: 'json' | 'txt'
  tokens?: number
}

export const AddRepoBody = {
  type: 'object',
  required: ['docsRepoUrl'],
  properties: {
    docsRepoUrl: { type: 'string', minLength: 1, maxLength: 2048 },
    gitToken: { type: 'string', maxLength: 1024 },
    private: { type: 'boolean' },
    skipVersionFiltering: { type: 'boolean' },
    generateDocs: { type: 'boolean' },
  },
} as const

export interface AddRepoBodyType {
  docsRepoUrl: string
  gitToken?: string
  private?: boolean
  skipVersionFiltering?: boolean
  generateDocs?: boolean
}

export const AddRepoParams = {
  type: 'object',
  required: ['sourceKind'],
  properties: { sourceKind: { type: 'string', enum: ['github', 'gitlab', 'bitbucket', 'git'] } },
} as const

export const AddOpenApiBody = {
  type: 'object',
  required: ['openApiUrl'],
  properties: { openApiUrl: { type: 'string', minLength: 1, maxLength: 2048 } },
} as const

export interface AddOpenApiBodyType {
  openApiUrl: string
}

export const AddLlmsTxtBody = {
  type: 'object',
  required: ['llmstxtUrl'],
  properties: { llmstxtUrl: { type: 'string', minLength: 1, maxLength: 2048 } },
} as const

export interface AddLlmsTxtBodyType {
  llmstxtUrl: string
}

export const AddWebsiteBody = {
  type: 'object',
  required: ['websiteUrl'],
  properties: {
    websiteUrl: { type: 'string', minLength: 1, maxLength: 2048 },
    websiteBaseUrl: { type: 'string', minLength: 1, maxLength: 2048 },
    /** Lectern extension: render pages in Chromium first (sites that need JavaScript; on-premise only). */
    render: { type: 'boolean' },
  },
} as const

export interface AddWebsiteBodyType {
  websiteUrl: string
  websiteBaseUrl?: string
  render?: boolean
}
