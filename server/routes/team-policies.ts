/**
 * A teamspace's policies for the signed-in dashboard (cloud only), the session twin of
 * `/v2/policies` (policies.ts) with the team named in the path: every member reads them, owners
 * and admins change them, and a preview answers what a change would give, with its
 * accessibleLibraryCount, saving nothing, so the editor shows the count before Save.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { LecternError } from '../../src/errors.js'
import { applyPatch, type PolicyPatch } from '../../src/tenancy/policies.js'
import type { TeamPermission } from '../../src/tenancy/roles.js'
import { requirePermission, teamAccess } from '../../src/tenancy/teamspaces.js'
import { PatchPoliciesBody, PolicyResponse } from '../schemas/policies.js'
import { TeamParams } from '../schemas/teams.js'
import { policyView } from './policy-view.js'

export default async function teamPolicies(app: FastifyInstance): Promise<void> {
  const { store, catalogue } = app.runtime
  const session = { access: 'session' as const }

  /** The team of the path and its policy, once the user's role there allows `permission`. */
  const teamFor = async (request: FastifyRequest<{ Params: { team: number } }>, permission: TeamPermission) => {
    const found = await teamAccess(store, request.params.team, request.user!.id)
    requirePermission(found, permission)
    return { teamPk: found.team.id, policy: (await store.policies.of(found.team.id))! }
  }

  app.get<{ Params: { team: number } }>(
    '/teams/:team/policies',
    { config: session, schema: { params: TeamParams, response: { 200: PolicyResponse } } },
    async (request) => await policyView(catalogue, (await teamFor(request, 'viewDashboard')).policy),
  )

  app.patch<{ Params: { team: number }; Body: PolicyPatch }>(
    '/teams/:team/policies',
    { config: session, schema: { params: TeamParams, body: PatchPoliciesBody, response: { 200: PolicyResponse } } },
    async (request) => {
      const { teamPk } = await teamFor(request, 'manageLibraryAccess')
      const next = await store.policies.update(teamPk, (current) => applyPatch(current, request.body))
      if (!next) throw new LecternError('team_not_found', `No teamspace with ID ${teamPk}.`)
      return await policyView(catalogue, next)
    },
  )

  app.post<{ Params: { team: number }; Body: PolicyPatch }>(
    '/teams/:team/policies/preview',
    { config: session, schema: { params: TeamParams, body: PatchPoliciesBody, response: { 200: PolicyResponse } } },
    async (request) => await policyView(catalogue, applyPatch((await teamFor(request, 'manageLibraryAccess')).policy, request.body)),
  )
}
