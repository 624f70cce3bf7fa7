/**
 * A teamspace's connections (cloud only, signed-in members): `GET /api/teams/:team/connections`
 * for every member, `POST` and `DELETE .../:name` for owners and admins
 * (src/tenancy/team-connections.ts). The shapes are those of the install's Settings > Connections;
 * tokens are write-only.
 */
import type { FastifyInstance } from 'fastify'
import type { ConnectionInput } from '../../src/sources/connections.js'
import { addTeamConnection, removeTeamConnection, teamScope } from '../../src/tenancy/team-connections.js'
import { requirePermission, teamAccess } from '../../src/tenancy/teamspaces.js'
import { ConnectionBody, ConnectionListSchema, ConnectionView, TeamConnectionParams } from '../schemas/connections.js'
import { TeamParams } from '../schemas/teams.js'
import { auditContext } from '../audit-context.js'

export default async function teamConnections(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const session = { access: 'session' as const }
  const access = async (teamId: number, userId: number) => await teamAccess(store, teamId, userId)

  app.get<{ Params: { team: number } }>('/teams/:team/connections', { config: session, schema: { params: TeamParams, response: { 200: ConnectionListSchema } } }, async (request) => {
    const found = await access(request.params.team, request.user!.id)
    requirePermission(found, 'viewDashboard')
    return { connections: await store.connections.list(teamScope(found)) }
  })

  app.post<{ Params: { team: number }; Body: ConnectionInput }>(
    '/teams/:team/connections',
    { config: session, schema: { params: TeamParams, body: ConnectionBody, response: { 201: ConnectionView } } },
    async (request, reply) => {
      const found = await access(request.params.team, request.user!.id)
      return reply.code(201).send(await addTeamConnection(store, await auditContext(request, store.users), app.runtime.guard, found, request.body))
    },
  )

  app.delete<{ Params: { team: number; name: string } }>(
    '/teams/:team/connections/:name',
    { config: session, schema: { params: TeamConnectionParams, response: { 200: ConnectionView } } },
    async (request) => await removeTeamConnection(store, await auditContext(request, store.users), await access(request.params.team, request.user!.id), request.params.name),
  )
}
