/**
 * `GET /api/v2/libs/metrics?libraryId=..&days=..` (src/library/metrics.ts): an API key or any
 * session, since in the cloud members read their teamspace's metrics signed in. Anonymous
 * callers are refused before the query is validated, as server/plugins/access.ts does for its routes.
 */
import type { FastifyInstance } from 'fastify'
import { DEFAULT_DAYS, libraryForMetrics, libraryMetrics, MAX_DAYS, MIN_DAYS, refuseAnonymous } from '../../../src/library/metrics.js'

const MetricsQuery = {
  type: 'object',
  required: ['libraryId'],
  properties: {
    libraryId: { type: 'string', minLength: 1, maxLength: 500 },
    days: { type: 'integer', minimum: MIN_DAYS, maximum: MAX_DAYS, default: DEFAULT_DAYS },
  },
} as const

export default async function metrics(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { libraryId: string; days: number } }>(
    '/v2/libs/metrics',
    {
      schema: { querystring: MetricsQuery },
      onRequest: async (request) => refuseAnonymous(request.caller),
    },
    async (request) => {
      const { store, usage } = app.runtime
      const library = await libraryForMetrics(store, app.lecternOptions.config.mode, request.caller, request.query.libraryId)
      return await libraryMetrics(store, usage, library, request.query.days)
    },
  )
}
