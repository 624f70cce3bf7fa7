/**
 * Who submits a library over HTTP, which decides where a private source goes: submitted with a
 * teamspace's key in cloud mode, it belongs to that teamspace (src/tenancy/private-sources.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { submitSource, type Submitted } from '../src/jobs/submit.js'
import type { SourceSubmission } from '../src/sources/types.js'
import { restrictionNotice } from '../src/tenancy/library-access.js'
import { placeSubmission, type Submitter } from '../src/tenancy/private-sources.js'

export const submitterOf = (app: FastifyInstance, request: FastifyRequest): Submitter => ({ caller: request.caller, mode: app.lecternOptions.config.mode })

/** Submits a non-git source under the ID and owner its privacy gives it. */
export async function submitPlaced(app: FastifyInstance, request: FastifyRequest, submission: SourceSubmission): Promise<Submitted> {
  const { store } = app.runtime
  const { id, owner } = await placeSubmission(store.teams, submitterOf(app, request), submission.libraryId, submission.isPrivate === true)
  return await submitSource(store, { ...submission, libraryId: id }, owner)
}

/** An add's answer: the library's ID and what happens next, with a word when the library will be closed to the caller. */
export async function addAnswer(app: FastifyInstance, request: FastifyRequest, submitted: Submitted): Promise<{ libraryName: string; message: string }> {
  const notice = await restrictionNotice(app.runtime.store, app.lecternOptions.config.mode, request.caller, submitted.libraryId)
  return { libraryName: submitted.libraryId, message: notice ? `${submitted.message} ${notice}` : submitted.message }
}
