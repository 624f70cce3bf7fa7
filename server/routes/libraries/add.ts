import type { FastifyInstance } from 'fastify'
import { submitRepository } from '../../../src/jobs/submit.js'
import type { GitSourceKind } from '../../../src/sources/repo-url.js'
import { AddRepoBody, AddRepoParams, type AddRepoBodyType } from '../../schemas/libraries.js'
import { addAnswer, submitterOf } from '../../submitter.js'

export default async function add(app: FastifyInstance): Promise<void> {
  app.post<{ Params: { sourceKind: GitSourceKind }; Body: AddRepoBodyType }>(
    '/v2/add/repo/:sourceKind',
    { schema: { params: AddRepoParams, body: AddRepoBody }, config: { access: 'apiKey' } },
    async (request) => {
      const submitted = await submitRepository(app.runtime.store, { sourceKind: request.params.sourceKind, ...request.body }, app.runtime.guard, submitterOf(app, request))
      app.runtime.worker.wake()
      return await addAnswer(app, request, submitted)
    },
  )
}
