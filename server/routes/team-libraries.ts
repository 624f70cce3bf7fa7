/**
 * `GET /api/teams/:team/libraries` (cloud only, every member): the teamspace's own libraries and
 * the public ones its policy lets through, for the dashboard (src/tenancy/team-libraries.ts).
 * A library's metrics are read with the same session at /api/v2/libs/metrics.
 */
import type { FastifyInstance } from 'fastify'
import { teamLibraries } from '../../src/tenancy/team-libraries.js'
import { requirePermission, teamAccess } from '../../src/tenancy/teamspaces.js'
import { TeamParams } from '../schemas/teams.js'

const nullableString = { type: ['string', 'null'] } as const

const TeamLibrariesSchema = {
  type: 'object',
  required: ['libraries'],
  properties: {
    libraries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'sourceKind', 'owned', 'allowed', 'state', 'snippets', 'updatedAt', 'errorCode', 'errorMessage'],
        properties: {
          id: { type: 'string' },
          title: { type: 'string' },
          sourceKind: { type: 'string' },
          owned: { type: 'boolean' },
          allowed: { type: 'boolean' },
          state: { type: 'string' },
          snippets: { type: 'integer' },
          updatedAt: nullableString,
          errorCode: nullableString,
          errorMessage: nullableString,
        },
      },
    },
  },
} as const

export default async function teamLibrariesRoute(app: FastifyInstance): Promise<void> {
  const { store, catalogue } = app.runtime
  app.get<{ Params: { team: number } }>(
    '/teams/:team/libraries',
    { config: { access: 'session' }, schema: { params: TeamParams, response: { 200: TeamLibrariesSchema } } },
    async (request) => {
      const found = await teamAccess(store, request.params.team, request.user!.id)
      requirePermission(found, 'viewDashboard')
      return { libraries: await teamLibraries(catalogue, (await store.policies.of(found.team.id))!, found.team.id, request.caller) }
    },
  )
}
