import type { FastifyInstance } from 'fastify'
import { parseStatus } from '../../src/jobs/status.js'

/** The job queue (Context7 enterprise `ParseStatusResponse`), plus recent failures, as the caller may see them. */
export default async function parseStatusRoute(app: FastifyInstance): Promise<void> {
  app.get('/parse-status', async (request) => await parseStatus(app.runtime.store, request.caller))
}
