/**
 * Who submits a library over HTTP, which decides where a private source goes: submitted with a
 * teamspace's key in cloud mode, it belongs to that teamspace (src/tenancy/private-sources.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { submitSource, type Submitted } from '../src/jobs/submit.js'
import type { SourceSubmission } from '../src/sources/types.js'
import { placeSubmission, type Submitter } from '../src/tenancy/private-sources.js'

export const submitterOf = (app: FastifyInstance, request: FastifyRequest): Submitter => ({ caller: request.caller, mode: app.lecternOptions.config.mode })

/** Submits a non-git source under the ID and owner its privacy gives it. */
export function submitPlaced(app: FastifyInstance, request: FastifyRequest, submission: SourceSubmission): Submitted {
  const { store } = app.runtime
  const { id, owner } = placeSubmission(store.teams, submitterOf(app, request), submission.libraryId, submission.isPrivate === true)
  return submitSource(store, { ...submission, libraryId: id }, owner)
}
