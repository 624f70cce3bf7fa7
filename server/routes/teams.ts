/**
 * Teamspaces, members and invitations of the signed-in user (cloud only). The team is named by
 * its ID in the path, so the dashboard's teamspace switcher needs no server state: it picks one of
 * `GET /api/teams` and calls that team's routes. Roles are checked in src/tenancy/teamspaces.ts.
 */
import { audit } from '../../src/audit/log.js'
import { auditContext } from '../audit-context.js'
import type { FastifyInstance } from 'fastify'
import type { InvitedRole } from '../../src/store/invitations.js'
import { invite } from '../../src/tenancy/invitations.js'
import { createTeam, deleteTeam, requirePermission, teamAccess } from '../../src/tenancy/teamspaces.js'
import { requireVerified } from '../../src/tenancy/accounts.js'
import {
  InvitationListSchema,
  InvitationSchema,
  InviteBody,
  MemberListSchema,
  MemberParams,
  MemberSchema,
  RoleBody,
  TeamItemParams,
  TeamListSchema,
  TeamNameBody,
  TeamParams,
  TeamSchema,
} from '../schemas/teams.js'
import { teamView } from './team-view.js'

export default async function teams(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const session = { access: 'session' as const }
  const access = async (teamId: number, userId: number) => await teamAccess(store, teamId, userId)

  app.get('/teams', { config: session, schema: { response: { 200: TeamListSchema } } }, async (request) => {
    const user = request.user!
    await store.teams.personalTeam(user.id)
    const { keyed, windowSeconds } = app.lecternOptions.config.rateLimit
    return { teams: (await store.teams.membershipsOf(user.id)).map(teamView), rateLimit: { keyed, windowSeconds } }
  })

  app.post<{ Body: { name: string } }>('/teams', { config: session, schema: { body: TeamNameBody, response: { 201: TeamSchema } } }, async (request, reply) => {
    const team = await createTeam(store, request.user!, request.body.name)
    return reply.code(201).send(teamView({ team, role: 'owner' }))
  })

  app.patch<{ Params: { team: number }; Body: { name: string } }>(
    '/teams/:team',
    { config: session, schema: { params: TeamParams, body: TeamNameBody, response: { 200: TeamSchema } } },
    async (request) => {
      const found = await access(request.params.team, request.user!.id)
      requirePermission(found, 'renameTeam')
      return teamView({ team: await store.teams.rename(found.team.id, request.body.name), role: found.role })
    },
  )

  app.delete<{ Params: { team: number } }>('/teams/:team', { config: session, schema: { params: TeamParams } }, async (request) => {
    const found = await access(request.params.team, request.user!.id)
    requirePermission(found, 'deleteTeam')
    return await deleteTeam(store, found.team, request.caller, app.runtime.forgetSet)
  })

  app.get<{ Params: { team: number } }>('/teams/:team/members', { config: session, schema: { params: TeamParams, response: { 200: MemberListSchema } } }, async (request) => {
    const found = await access(request.params.team, request.user!.id)
    requirePermission(found, 'viewDashboard')
    return { members: await store.teams.members(found.team.id) }
  })

  app.patch<{ Params: { team: number; userId: number }; Body: { role: InvitedRole } }>(
    '/teams/:team/members/:userId',
    { config: session, schema: { params: MemberParams, body: RoleBody, response: { 200: MemberSchema } } },
    async (request) => {
      const found = await access(request.params.team, request.user!.id)
      requirePermission(found, 'manageMembers')
      const context = await auditContext(request, store.users)
      return await store.transaction(async () => {
        const member = await store.teams.setRole(found.team.id, request.params.userId, request.body.role)
        await audit(store, context, 'user.role.changed', member.email, { team: found.team.name, role: member.role })
        return member
      })
    },
  )

  app.delete<{ Params: { team: number; userId: number } }>('/teams/:team/members/:userId', { config: session, schema: { params: MemberParams } }, async (request) => {
    const found = await access(request.params.team, request.user!.id)
    // Anyone may leave; removing someone else is for those who manage members.
    if (request.params.userId !== request.user!.id) requirePermission(found, 'manageMembers')
    const { revokedKeys } = await store.teams.removeMember(found.team.id, request.params.userId)
    return { removed: request.params.userId, revokedKeys }
  })

  app.get<{ Params: { team: number } }>(
    '/teams/:team/invitations',
    { config: session, schema: { params: TeamParams, response: { 200: InvitationListSchema } } },
    async (request) => {
      const found = await access(request.params.team, request.user!.id)
      requirePermission(found, 'manageMembers')
      return { invitations: await store.invitations.pending(found.team.id) }
    },
  )

  app.post<{ Params: { team: number }; Body: { email: string; role: InvitedRole } }>(
    '/teams/:team/invitations',
    { config: session, schema: { params: TeamParams, body: InviteBody, response: { 201: InvitationSchema } } },
    async (request, reply) => {
      const found = await access(request.params.team, request.user!.id)
      requirePermission(found, 'manageMembers')
      requireVerified(request.user!)
      return reply.code(201).send(await invite(store, app.mailer, { team: found.team, inviter: request.user!, ...request.body }))
    },
  )

  app.delete<{ Params: { team: number; id: number } }>(
    '/teams/:team/invitations/:id',
    { config: session, schema: { params: TeamItemParams, response: { 200: InvitationSchema } } },
    async (request) => {
      const found = await access(request.params.team, request.user!.id)
      requirePermission(found, 'manageMembers')
      return await store.invitations.remove(found.team.id, request.params.id)
    },
  )
}
