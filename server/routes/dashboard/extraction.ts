/** A library version's extraction report (an admin's session): what its last ingest made of its documents. */
import type { FastifyInstance } from 'fastify'
import { extractionOf } from '../../../src/extraction/view.js'
import { LibraryParams, type LibraryParamsType } from '../../schemas/dashboard.js'

const ExtractionQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { version: { type: 'string', maxLength: 200, default: '' } },
} as const

export default async function extraction(app: FastifyInstance): Promise<void> {
  app.get<{ Params: LibraryParamsType; Querystring: { version: string } }>(
    '/libraries/:owner/:name/extraction',
    { config: { access: 'admin' }, schema: { params: LibraryParams, querystring: ExtractionQuery } },
    async (request) => await extractionOf(app.runtime.store, `/${request.params.owner}/${request.params.name}`, request.caller, request.query.version),
  )
}
