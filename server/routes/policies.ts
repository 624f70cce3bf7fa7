/**
 * Teamspace policies, cloud mode only: `GET /v2/policies` for every key of the teamspace,
 * `PATCH /v2/policies` (an incremental update) for keys of its owners and admins. The teamspace is
 * the key's; a key without one has no policies (404 team_not_found). The dashboard's session
 * routes of the same policies are in team-policies.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { LecternError } from '../../src/errors.js'
import { applyPatch, type PolicyPatch } from '../../src/tenancy/policies.js'
import type { Policy } from '../../src/store/policies.js'
import { can } from '../../src/tenancy/roles.js'
import { PatchPoliciesBody, PolicyResponse } from '../schemas/policies.js'
import { policyView } from './policy-view.js'

export default async function policies(app: FastifyInstance): Promise<void> {
  const { store, catalogue } = app.runtime
  const respond = async (policy: Policy) => await policyView(catalogue, policy)

  const teamOf = async (request: FastifyRequest): Promise<{ teamPk: number; userId: number | null; policy: Policy }> => {
    const { caller } = request
    const policy = caller.kind === 'api-key' && caller.teamId !== null ? await store.policies.of(caller.teamId) : undefined
    if (caller.kind !== 'api-key' || caller.teamId === null || !policy) {
      throw new LecternError('team_not_found', 'Policies belong to a teamspace; use an API key of the teamspace.')
    }
    return { teamPk: caller.teamId, userId: caller.userId, policy }
  }

  const access = { access: 'apiKey' as const }
  app.get('/v2/policies', { config: access, schema: { response: { 200: PolicyResponse } } }, async (request) => await respond((await teamOf(request)).policy))

  app.patch<{ Body: PolicyPatch }>('/v2/policies', { config: access, schema: { body: PatchPoliciesBody, response: { 200: PolicyResponse } } }, async (request) => {
    const { teamPk, userId } = await teamOf(request)
    const role = userId === null ? undefined : await store.teams.roleOf(teamPk, userId)
    if (!role || !can(role, 'manageLibraryAccess')) throw new LecternError('forbidden', 'Only team owners and admins may change the teamspace policies.')
    const next = await store.policies.update(teamPk, (current) => applyPatch(current, request.body))
    if (!next) throw new LecternError('team_not_found', `No teamspace with ID ${teamPk}.`)
    return await respond(next)
  })
}
