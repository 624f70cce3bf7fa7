/**
 * The plans of cloud mode and everything they limit, in one place. The operator sets a team's
 * plan (`lectern teams plan set`); nothing else changes one. Request rates are multiples of the
 * install's keyed limit (`rateLimit.keyed`, per `rateLimit.windowSeconds`), so one setting scales
 * every plan and anonymous callers keep `rateLimit.anonymous`.
 */
import type { Plan } from '../store/teams.js'

export interface PlanLimits {
  /** Members of a team on this plan, the owner included; Infinity for no limit. */
  members: number
  /** The plan's share of requests per window per key, as a multiple of `rateLimit.keyed`. */
  rateMultiplier: number
  /** Whether the team may add private sources (private git, Confluence, Notion, uploads). */
  privateSources: boolean
  /** Whether a user on this plan may create a teamspace (besides their personal one). */
  createsTeams: boolean
}

export const PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = {
  free: { members: 1, rateMultiplier: 1, privateSources: false, createsTeams: false },
  pro: { members: 10, rateMultiplier: 5, privateSources: true, createsTeams: true },
  enterprise: { members: Infinity, rateMultiplier: 20, privateSources: true, createsTeams: true },
}

/** How many members a team on the plan may have, owner included (store.teams.addMember enforces it). */
export const membersAllowed = (plan: Plan): number => PLAN_LIMITS[plan].members
