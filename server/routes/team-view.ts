/** A membership as the teamspace API answers it: the team, the caller's role and the plan's limits. */
import type { Membership } from '../../src/store/teams.js'
import { PLAN_LIMITS } from '../../src/tenancy/plans.js'

export function teamView({ team, role }: Membership) {
  const limits = PLAN_LIMITS[team.plan]
  return {
    id: team.id,
    name: team.name,
    plan: team.plan,
    personal: team.personalUserId !== null,
    role,
    limits: {
      members: Number.isFinite(limits.members) ? limits.members : null,
      privateSources: limits.privateSources,
      createsTeams: limits.createsTeams,
      rateMultiplier: limits.rateMultiplier,
    },
    createdAt: team.createdAt,
  }
}
