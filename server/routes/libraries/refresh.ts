import type { FastifyInstance } from 'fastify'
import { refreshLibrary } from '../../../src/jobs/library-jobs.js'

const RefreshBody = {
  type: 'object',
  required: ['libraryName'],
  properties: {
    libraryName: { type: 'string', minLength: 1, maxLength: 500 },
    branch: { type: 'string', minLength: 1, maxLength: 255 },
    gitToken: { type: 'string', maxLength: 1024 },
    force: { type: 'boolean' },
  },
} as const

export default async function refresh(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { libraryName: string; branch?: string; gitToken?: string; force?: boolean } }>(
    '/v1/refresh',
    { schema: { body: RefreshBody }, config: { access: 'apiKey' } },
    async (request) => {
      const { libraryName, ...options } = request.body
      const queued = await refreshLibrary(app.runtime.store, { libraryId: libraryName, ...options }, request.caller, app.runtime.guard)
      app.runtime.worker.wake()
      return { message: queued.message, libraryName: queued.libraryId, jobId: queued.job.pk }
    },
  )
}
