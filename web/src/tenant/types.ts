/** What the cloud's account and teamspace API answers (README "Cloud accounts and teamspaces"). */
import type { Plan, TeamRole } from '../../../src/store/teams'
import type { Session } from '../api'

export type InvitedRole = Exclude<TeamRole, 'owner'>

export interface Team {
  id: number
  name: string
  plan: Plan
  personal: boolean
  role: TeamRole
  /** `members: null` is unlimited; `rateMultiplier` multiplies the install's keyed rate limit. */
  limits: { members: number | null; privateSources: boolean; createsTeams: boolean; rateMultiplier: number }
  createdAt: string
}

export interface TeamList {
  teams: Team[]
  /** Requests per window of a key before the plan's multiple; 0 is no limit. */
  rateLimit: { keyed: number; windowSeconds: number }
}

/** GET /api/session in cloud mode, for a signed-in user. */
export interface TenantSession extends Session {
  emailVerified?: boolean
}

export interface Member {
  userId: number
  email: string
  role: TeamRole
  joinedAt: string
}

export interface Invitation {
  id: number
  teamId: number
  email: string
  role: InvitedRole
  invitedBy: number | null
  createdAt: string
  expiresAt: string
}

export interface TeamKey {
  id: number
  name: string
  preview: string
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
  userId: number | null
}

/** What the tenant shell gives each page of its NAV (./nav.ts). */
export interface TenantPageProps {
  team: Team
  /** The install's keyed rate limit, which the plan's `rateMultiplier` multiplies. */
  rateLimit: TeamList['rateLimit']
  /** The signed-in user. */
  email: string
  emailVerified: boolean
  /** Every team of the user, personal space first. */
  teams: Team[]
  /** After a change to the user's teams (created, renamed, deleted, left): reloads them and the switcher. */
  onTeamsChanged: () => void
  /** Announces an outcome on the page at `path` once the shell shows it (a deleted team's, on the personal space). */
  onNotice: (text: string, path: string) => void
  /** The path below the page's own (`/teams/7/<page>/<sub>`), for a page with pages of its own. */
  sub?: string
}
