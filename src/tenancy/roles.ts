/**
 * Roles within a teamspace and what each may do: exactly the permission table of Context7's
 * `howto/teamspace.mdx`. Every check of a member's role goes through `can`.
 */
import type { TeamRole } from '../store/teams.js'

export type TeamPermission =
  | 'viewDashboard'
  | 'createKeys'
  | 'manageMembers'
  | 'manageLibraryAccess'
  | 'managePrivateSources'
  | 'renameTeam'
  | 'deleteTeam'

const EVERYONE: readonly TeamRole[] = ['owner', 'admin', 'developer']
const MANAGERS: readonly TeamRole[] = ['owner', 'admin']
const OWNER: readonly TeamRole[] = ['owner']

const PERMISSIONS: Readonly<Record<TeamPermission, readonly TeamRole[]>> = {
  viewDashboard: EVERYONE,
  createKeys: EVERYONE,
  manageMembers: MANAGERS,
  manageLibraryAccess: MANAGERS,
  managePrivateSources: MANAGERS,
  renameTeam: OWNER,
  deleteTeam: OWNER,
}

export const can = (role: TeamRole, permission: TeamPermission): boolean => PERMISSIONS[permission].includes(role)
