/** The dashboard's versions of a library: queue a git tag, remove a version (admin session). */
import type { FastifyInstance } from 'fastify'
import { addVersion } from '../../../src/jobs/library-jobs.js'
import { removeVersion } from '../../../src/library/admin.js'
import {
  AddVersionBody,
  LibraryParams,
  QueuedVersionSchema,
  RemovedVersionSchema,
  VersionParams,
  type LibraryParamsType,
  type VersionParamsType,
} from '../../schemas/dashboard.js'

const idOf = (params: LibraryParamsType) => `/${params.owner}/${params.name}`

export default async function versions(app: FastifyInstance): Promise<void> {
  const { runtime } = app
  const admin = { access: 'admin' as const }

  app.post<{ Params: LibraryParamsType; Body: { tag: string } }>(
    '/libraries/:owner/:name/versions',
    { config: admin, schema: { params: LibraryParams, body: AddVersionBody, response: { 200: QueuedVersionSchema } } },
    async (request) => {
      const { tag } = request.body
      const queued = await addVersion(runtime.store, idOf(request.params), tag, undefined, request.caller, runtime.guard, app.lecternOptions.config.mode)
      runtime.worker.wake()
      return { libraryName: queued.libraryId, version: tag, jobId: queued.job.pk }
    },
  )

  app.delete<{ Params: VersionParamsType }>(
    '/libraries/:owner/:name/versions/:tag',
    { config: admin, schema: { params: VersionParams, response: { 200: RemovedVersionSchema } } },
    async (request) => {
      const removed = await removeVersion(runtime.store, idOf(request.params), request.params.tag, request.caller, runtime.forgetSet)
      return { removed: removed.id, tag: removed.tag, sets: removed.sets }
    },
  )
}
