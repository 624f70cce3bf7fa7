/**
 * The audit log (admin session, src/audit/log.ts): a page of events, newest first, with filters;
 * and every matching event as JSON lines, oldest first, for a SIEM.
 */
import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { auditFilter, exportAudit, readAudit, type AuditQuery as Filters } from '../../src/audit/log.js'
import { AuditExportQuery, AuditPageSchema, AuditQuery } from '../schemas/audit.js'

export default async function audit(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const admin = { access: 'admin' as const }

  app.get<{ Querystring: Filters & { limit: number; cursor?: number } }>(
    '/audit',
    { config: admin, schema: { querystring: AuditQuery, response: { 200: AuditPageSchema } } },
    async (request) => {
      const { limit, cursor, ...filters } = request.query
      return await readAudit(store, auditFilter(filters), { limit, cursor })
    },
  )

  app.get<{ Querystring: Filters }>('/audit/export', { config: admin, schema: { querystring: AuditExportQuery } }, async (request, reply) => {
    const filter = auditFilter(request.query)
    const lines = Readable.from((async function* () {
      for await (const event of exportAudit(store, filter)) yield `${JSON.stringify(event)}\n`
    })())
    return reply
      .header('content-type', 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="lectern-audit-${new Date().toISOString().slice(0, 10)}.jsonl"`)
      .send(lines)
  })
}
