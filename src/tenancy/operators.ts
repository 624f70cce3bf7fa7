/**
 * What the operator does to accounts and teamspaces (`lectern users ...`, `lectern teams ...`,
 * `lectern keys create --user`), by email and team name as an operator knows them. The checks
 * live here, not in the commands, so the HTTP API of teamspaces asks the same ones.
 */
import { audit, type AuditContext } from '../audit/log.js'
import { createKey } from './keys.js'
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import type { Invitation } from '../store/invitations.js'
import type { CreatedKey } from '../store/keys.js'
import type { Member, Team } from '../store/teams.js'
import type { User } from '../store/users.js'
import { membersAllowed, PLAN_LIMITS } from './plans.js'
import type { Plan, TeamRole } from '../store/teams.js'
import { counted } from '../text/counted.js'

export interface TeamSummary extends Team {
  owner: string
  members: number
}

/** Refuses teamspaces on-premise, where nothing would honour them: they exist in the cloud alone. */
export function requireCloud(mode: Mode): void {
  if (mode !== 'cloud') {
    throw new LecternError(
      'forbidden',
      'Teamspaces are a cloud feature, and this data directory runs on-premise. Run the command on a cloud install\'s data directory (its mode is recorded by `lectern serve --mode cloud`), or with LECTERN_MODE=cloud (or mode: cloud in lectern.yaml).',
    )
  }
}

export async function findUser(store: Store, email: string): Promise<User> {
  if (email.trim() === '') throw new LecternError('validation_error', 'A user email is empty.')
  const user = await store.users.byEmail(email)
  if (!user) throw new LecternError('user_not_found', `No user ${email.trim()}. Create one with \`lectern users create ${email.trim()}\`.`)
  return user
}

export async function findTeam(store: Store, name: string): Promise<Team> {
  const team = await store.teams.byName(name)
  if (!team) throw new LecternError('team_not_found', `No teamspace named "${name.trim()}".`)
  return team
}

/** A user who signs in to the dashboard as a member; in the cloud with their personal space. */
export function createUser(store: Store, mode: Mode, context: AuditContext, input: { email: string; password: string }): Promise<{ user: User; personalTeam: Team | null }> {
  return store.transaction(async () => {
    const user = await store.users.create({ ...input, role: 'member' })
    await audit(store, context, 'user.created', user.email, { role: user.role })
    return { user, personalTeam: mode === 'cloud' ? await store.teams.personalTeam(user.id) : null }
  })
}

/**
 * A teamspace owned by `ownerEmail`, on `plan` or else the plan of the owner's personal space.
 * A teamspace needs a plan that creates teams (pro, enterprise): a free one is refused.
 */
export async function createTeam(store: Store, input: { name: string; ownerEmail: string; plan?: Plan }): Promise<Team> {
  const owner = await findUser(store, input.ownerEmail)
  const plan = input.plan ?? (await store.teams.personalTeam(owner.id)).plan
  if (!PLAN_LIMITS[plan].createsTeams) {
    throw new LecternError(
      'forbidden',
      `A teamspace needs the pro or enterprise plan, and ${input.plan ? 'the plan asked for' : `${owner.email}'s plan`} is ${plan}: create it with --plan pro (or --plan enterprise).`,
    )
  }
  return await store.teams.create({ name: input.name, ownerUserId: owner.id, plan })
}

export async function listTeams(store: Store): Promise<TeamSummary[]> {
  const teams = await store.teams.list()
  return Promise.all(
    teams.map(async (team) => {
      const members = await store.teams.members(team.id)
      return { ...team, owner: members.find((m) => m.role === 'owner')?.email ?? '', members: members.length }
    }),
  )
}

export const listMembers = async (store: Store, teamName: string): Promise<Member[]> => await store.teams.members((await findTeam(store, teamName)).id)

export const listInvitations = async (store: Store, teamName: string): Promise<Invitation[]> => await store.invitations.pending((await findTeam(store, teamName)).id)

/** Cancels the team's pending invitation of `email`: the link stops working and the place in the plan is freed. */
export async function cancelInvitation(store: Store, teamName: string, email: string): Promise<Invitation> {
  const team = await findTeam(store, teamName)
  const pending = (await store.invitations.pending(team.id)).find((i) => i.email.toLowerCase() === email.trim().toLowerCase())
  if (!pending) throw new LecternError('not_found', `${team.name} has no pending invitation of ${email}; \`lectern teams invitations ${team.name}\` lists them.`)
  return await store.invitations.remove(team.id, pending.id)
}

export function addMember(store: Store, context: AuditContext, teamName: string, email: string, role: Exclude<TeamRole, 'owner'>): Promise<Member> {
  return store.transaction(async () => {
    const team = await findTeam(store, teamName)
    const member = await store.teams.addMember(team.id, (await findUser(store, email)).id, role, membersAllowed)
    await audit(store, context, 'user.role.changed', member.email, { team: team.name, role: member.role })
    return member
  })
}

export async function removeMember(store: Store, teamName: string, email: string): Promise<{ revokedKeys: number }> {
  const team = await findTeam(store, teamName)
  const user = await findUser(store, email)
  if (!await store.teams.roleOf(team.id, user.id)) throw new LecternError('user_not_found', `${user.email} is not a member of ${team.name}.`)
  return await store.teams.removeMember(team.id, user.id)
}

export interface PlanChange {
  team: Team
  /** The team's private libraries; on a plan without private sources they stay readable, and new ones are refused. */
  privateLibraries: string[]
}


/**
 * Sets a team's plan. A plan whose member limit is below the team's members and pending
 * invitations is refused, saying how many to remove: the limit would otherwise hold only for the
 * next addition. Private libraries stay readable on a plan without private sources (taking them
 * away would lose the team's work); adding new ones is refused there (src/tenancy/private-sources.ts).
 */
export async function setPlan(store: Store, teamName: string, plan: Plan): Promise<PlanChange> {
  const team = await findTeam(store, teamName)
  const limit = PLAN_LIMITS[plan].members
  const members = (await store.teams.members(team.id)).length
  const invited = (await store.invitations.pending(team.id)).length
  if (members + invited > limit) {
    const over = members + invited - limit
    // The owner is never removed: with no other member, only cancelling invitations frees a place.
    const remedy =
      members > 1
        ? `remove ${over} first (\`lectern teams remove-member ${team.name} <email>\`${invited > 0 ? `, or cancel invitations: \`lectern teams invitations ${team.name} --cancel <email>\`` : ''})`
        : `cancel ${counted(over, 'pending invitation')} first (\`lectern teams invitations ${team.name} --cancel <email>\`; the owner is never removed)`
    throw new LecternError(
      'forbidden',
      `The ${plan} plan allows ${counted(limit, 'member')}, and ${team.name} has ${counted(members, 'member')}${invited > 0 ? ` and ${counted(invited, 'pending invitation')}` : ''}: ${remedy}, or choose a larger plan.`,
    )
  }
  return { team: await store.teams.setPlan(team.id, plan), privateLibraries: await store.teams.libraryIdsOf(team.id) }
}

/**
 * A key of a user: within `teamName`, of which they must be a member, or else (cloud) their
 * personal space; on-premise without a team, where the key carries its user's library grants.
 */
export async function createUserKey(store: Store, mode: Mode, context: AuditContext, input: { name: string; email: string; teamName?: string }): Promise<CreatedKey> {
  const user = await findUser(store, input.email)
  if (input.teamName === undefined) {
    return await createKey(store, context, input.name, { userId: user.id, teamId: mode === 'cloud' ? (await store.teams.personalTeam(user.id)).id : null })
  }
  requireCloud(mode)
  const team = await findTeam(store, input.teamName)
  if (!await store.teams.roleOf(team.id, user.id)) {
    throw new LecternError('user_not_found', `${user.email} is not a member of ${team.name}; add them first with \`lectern teams add-member\`.`)
  }
  return await createKey(store, context, input.name, { userId: user.id, teamId: team.id })
}
