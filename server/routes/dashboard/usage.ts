/** `GET /api/usage?days=7|30|90` (admin session): the dashboard's Usage page, src/usage/report.ts. */
import type { FastifyInstance } from 'fastify'
import { USAGE_WINDOWS, usageReport, type UsageWindow } from '../../../src/usage/report.js'

const UsageQuery = {
  type: 'object',
  required: ['days'],
  properties: { days: { type: 'integer', enum: USAGE_WINDOWS } },
} as const

export default async function usage(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { days: UsageWindow } }>('/usage', { config: { access: 'admin' }, schema: { querystring: UsageQuery } }, async (request) =>
    await usageReport(app.runtime.store, app.runtime.usage, request.query.days),
  )
}
