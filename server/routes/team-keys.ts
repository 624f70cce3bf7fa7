/**
 * API keys of a user within a teamspace (cloud only). Every member creates keys, owned by them
 * in that team; a member sees and revokes their own, owners and admins (who manage members)
 * every key of the team. A key outside what the caller may see answers 404 key_not_found, as
 * one that does not exist. The key is in the creating answer only. The operator's keys of the
 * install stay at /api/keys (dashboard/keys.ts).
 */
import { createKey, revokeKey } from '../../src/tenancy/keys.js'
import { auditContext } from '../audit-context.js'
import type { FastifyInstance } from 'fastify'
import { LecternError } from '../../src/errors.js'
import { requireVerified } from '../../src/tenancy/accounts.js'
import { can } from '../../src/tenancy/roles.js'
import { requirePermission, teamAccess } from '../../src/tenancy/teamspaces.js'
import { CreateKeyBody } from '../schemas/dashboard.js'
import { CreatedTeamKeySchema, TeamItemParams, TeamKeyListSchema, TeamKeySchema, TeamParams } from '../schemas/teams.js'

export default async function teamKeys(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const session = { access: 'session' as const }

  app.get<{ Params: { team: number } }>('/teams/:team/keys', { config: session, schema: { params: TeamParams, response: { 200: TeamKeyListSchema } } }, async (request) => {
    const found = await teamAccess(store, request.params.team, request.user!.id)
    requirePermission(found, 'viewDashboard')
    const all = can(found.role, 'manageMembers')
    return { keys: await store.keys.list({ teamId: found.team.id, ...(all ? {} : { userId: request.user!.id }) }) }
  })

  app.post<{ Params: { team: number }; Body: { name: string } }>(
    '/teams/:team/keys',
    { config: session, schema: { params: TeamParams, body: CreateKeyBody, response: { 201: CreatedTeamKeySchema } } },
    async (request, reply) => {
      const found = await teamAccess(store, request.params.team, request.user!.id)
      requirePermission(found, 'createKeys')
      requireVerified(request.user!)
      return reply.code(201).send(await createKey(store, await auditContext(request, store.users), request.body.name, { userId: request.user!.id, teamId: found.team.id }))
    },
  )

  app.delete<{ Params: { team: number; id: number } }>(
    '/teams/:team/keys/:id',
    { config: session, schema: { params: TeamItemParams, response: { 200: TeamKeySchema } } },
    async (request) => {
      const found = await teamAccess(store, request.params.team, request.user!.id)
      const key = (await store.keys.list({ teamId: found.team.id })).find((k) => k.id === request.params.id)
      const mayRevoke = key !== undefined && (key.userId === request.user!.id || can(found.role, 'manageMembers'))
      if (!mayRevoke) throw new LecternError('key_not_found', `No API key with ID ${request.params.id} of yours in this teamspace.`)
      return await revokeKey(store, await auditContext(request, store.users), key.id)
    },
  )
}
