/**
 * What a signed-in user may do with a teamspace: every check goes through `can` (roles.ts). A
 * team the user is not a member of answers exactly like one that does not exist.
 */
import type { Caller } from '../library/access.js'
import { LecternError } from '../errors.js'
import { removeLibrary, type ForgetSet } from '../library/admin.js'
import type { Store } from '../store/index.js'
import type { Team } from '../store/teams.js'
import type { User } from '../store/users.js'
import { requireVerified } from './accounts.js'
import { PLAN_LIMITS } from './plans.js'
import { can, type TeamPermission } from './roles.js'
import type { TeamRole } from '../store/teams.js'

export interface TeamAccess {
  team: Team
  role: TeamRole
}

const WHAT: Record<TeamPermission, string> = {
  viewDashboard: 'view this teamspace',
  createKeys: 'create API keys here',
  manageMembers: 'manage members and invitations (owners and admins only)',
  manageLibraryAccess: 'manage library access (owners and admins only)',
  managePrivateSources: 'manage private sources (owners and admins only)',
  renameTeam: 'rename the teamspace (its owner only)',
  deleteTeam: 'delete the teamspace (its owner only)',
}

/** The team and the user's role in it; 404 team_not_found for a team they are not in. */
export async function teamAccess(store: Store, teamId: number, userId: number): Promise<TeamAccess> {
  const team = await store.teams.byPk(teamId)
  const role = team && await store.teams.roleOf(teamId, userId)
  if (!team || !role) throw new LecternError('team_not_found', `No teamspace ${teamId} of yours.`)
  return { team, role }
}

export function requirePermission({ role }: TeamAccess, permission: TeamPermission): void {
  if (!can(role, permission)) throw new LecternError('forbidden', `As ${role} you may not ${WHAT[permission]}.`)
}

/** A new teamspace owned by the user, on their personal space's plan, which must allow it. */
export async function createTeam(store: Store, user: User, name: string): Promise<Team> {
  requireVerified(user)
  const { plan } = await store.teams.personalTeam(user.id)
  if (!PLAN_LIMITS[plan].createsTeams) throw new LecternError('forbidden', 'Creating a teamspace needs a pro or enterprise plan.')
  return await store.teams.create({ name, ownerUserId: user.id, plan })
}

/**
 * Deletes a teamspace: its private libraries first, through the one library-removal path (their
 * snippet sets and vector files go too; one being processed refuses with 409 library_busy and
 * the team stays), then the team with its members, keys, invitations and connections.
 */
export async function deleteTeam(store: Store, team: Team, caller: Caller, forget?: ForgetSet): Promise<{ removed: string; libraries: string[] }> {
  if (team.personalUserId !== null) throw new LecternError('forbidden', 'A personal space cannot be deleted.')
  const libraries: string[] = []
  // All checked before any goes, so a busy library leaves the team whole rather than half removed.
  for (const id of await store.teams.libraryIdsOf(team.id)) {
    const library = await store.libraries.byId(id)
    // Removed since it was listed: nothing of it is left to remove.
    if (!library) continue
    const running = await store.jobs.runningForLibrary(library.pk)
    if (running) throw new LecternError('library_busy', `Library ${id} of ${team.name} is being processed (job ${running.pk}); delete the teamspace once the job has ended.`)
    libraries.push(id)
  }
  for (const id of libraries) await removeLibrary(store, id, caller, forget)
  await store.teams.remove(team.id)
  return { removed: team.name, libraries }
}
