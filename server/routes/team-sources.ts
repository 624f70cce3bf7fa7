/**
 * `POST /api/teams/:team/libraries` (cloud only, a signed-in owner or admin): adds a repository,
 * a Confluence space or Notion pages through one of the teamspace's connections, as its private
 * library, from the dashboard, which holds a session rather than a key
 * (src/tenancy/team-sources.ts). Answers as `POST /api/v2/add/confluence` does.
 */
import type { FastifyInstance } from 'fastify'
import { addTeamSource, type TeamSourceInput } from '../../src/tenancy/team-sources.js'
import { teamAccess } from '../../src/tenancy/teamspaces.js'
import { TeamSourceBody } from '../schemas/connections.js'
import { TeamParams } from '../schemas/teams.js'

const AddedSchema = { type: 'object', required: ['libraryName', 'message'], properties: { libraryName: { type: 'string' }, message: { type: 'string' } } } as const

export default async function teamSources(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  app.post<{ Params: { team: number }; Body: TeamSourceInput }>(
    '/teams/:team/libraries',
    { config: { access: 'session' }, schema: { params: TeamParams, body: TeamSourceBody, response: { 200: AddedSchema } } },
    async (request) => {
      const submitted = await addTeamSource(store, await teamAccess(store, request.params.team, request.user!.id), request.body, request.caller, app.runtime.guard)
      app.runtime.worker.wake()
      return { libraryName: submitted.libraryId, message: submitted.message }
    },
  )
}
