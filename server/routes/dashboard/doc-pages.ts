/** Browsing a library's snippets by page of its docs (admin session): the pages, then one page's snippets. */
import type { FastifyInstance } from 'fastify'
import { pagesOfLibrary, snippetsOfPage } from '../../../src/library/pages.js'
import { LibraryParams, type LibraryParamsType } from '../../schemas/dashboard.js'

const PagesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { version: { type: 'string', maxLength: 200, default: '' } },
} as const

const PageQuery = {
  type: 'object',
  required: ['page'],
  additionalProperties: false,
  properties: { page: { type: 'string', minLength: 1, maxLength: 4096 }, version: PagesQuery.properties.version },
} as const

export default async function docPages(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const idOf = (params: LibraryParamsType) => `/${params.owner}/${params.name}`

  app.get<{ Params: LibraryParamsType; Querystring: { version: string } }>(
    '/libraries/:owner/:name/pages',
    { config: { access: 'admin' }, schema: { params: LibraryParams, querystring: PagesQuery } },
    async (request) => ({ pages: await pagesOfLibrary(store, idOf(request.params), request.query.version, request.caller) }),
  )

  app.get<{ Params: LibraryParamsType; Querystring: { page: string; version: string } }>(
    '/libraries/:owner/:name/pages/snippets',
    { config: { access: 'admin' }, schema: { params: LibraryParams, querystring: PageQuery } },
    async (request) => await snippetsOfPage(store, idOf(request.params), request.query.version, request.query.page, request.caller),
  )
}
