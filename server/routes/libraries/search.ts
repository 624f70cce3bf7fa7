import type { FastifyInstance } from 'fastify'
import { SearchQuery, type SearchQueryType } from '../../schemas/libraries.js'

export default async function search(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: SearchQueryType }>('/v2/libs/search', { schema: { querystring: SearchQuery } }, async (request) => {
    const results = await app.runtime.catalogue.search(request.query.libraryName, request.query.query, {
      caller: request.caller,
      catalogVersion: request.catalogVersion,
    })
    return { results, searchFilterApplied: false }
  })
}
