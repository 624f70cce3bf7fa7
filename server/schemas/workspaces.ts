/** JSON schemas of POST /v2/add/confluence and /v2/add/notion, after Context7's openapi.json. */

const text = (maxLength: number) => ({ type: 'string', maxLength }) as const

export const AddConfluenceBody = {
  type: 'object',
  required: ['cloudId', 'siteUrl', 'spaceKey', 'spaceName', 'title', 'description'],
  properties: {
    cloudId: text(200),
    siteUrl: { type: 'string', minLength: 1, maxLength: 2048 },
    spaceKey: { type: 'string', minLength: 1, maxLength: 255 },
    spaceName: text(500),
    pageIds: { type: 'array', maxItems: 1000, items: text(30) },
    title: text(200),
    description: text(2000),
    projectId: text(200),
  },
} as const

export interface AddConfluenceBodyType {
  cloudId: string
  siteUrl: string
  spaceKey: string
  spaceName: string
  pageIds?: string[]
  title: string
  description: string
  projectId?: string
}

export const AddNotionBody = {
  type: 'object',
  required: ['workspaceId', 'workspaceName', 'pageIds', 'title', 'description'],
  properties: {
    workspaceId: text(200),
    workspaceName: text(200),
    pageIds: { type: 'array', minItems: 1, maxItems: 500, items: text(36) },
    title: text(200),
    description: text(2000),
    projectId: text(200),
  },
} as const

export interface AddNotionBodyType {
  workspaceId: string
  workspaceName: string
  pageIds: string[]
  title: string
  description: string
  projectId?: string
}
