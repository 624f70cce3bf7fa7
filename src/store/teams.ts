/**
 * Teamspaces and their members (cloud mode; migration 0014). A team has exactly one owner, kept
 * by a unique index; a user's personal team is named by their email and holds their keys and
 * private libraries when they work alone. A plan's member limit (src/tenancy/plans.ts, given by
 * the caller) is enforced here, in the transaction that adds a member, so no path can add one past
 * it; who may ask for a change is the caller's business (src/tenancy/).
 */
import { LecternError } from '../errors.js'
import { nowIso } from './db.js'
import type { Sql } from './sql.js'
import { VersionCache } from './version-cache.js'

/** The plans of cloud mode (what each limits: src/tenancy/plans.ts). */
export const PLANS = ['free', 'pro', 'enterprise'] as const
export type Plan = (typeof PLANS)[number]

const isPlan = (value: string): value is Plan => (PLANS as readonly string[]).includes(value)

/** Roles within a teamspace (what each may do: src/tenancy/roles.ts). */
export const TEAM_ROLES = ['owner', 'admin', 'developer'] as const
export type TeamRole = (typeof TEAM_ROLES)[number]

export interface Team {
  id: number
  name: string
  plan: Plan
  /** The user whose personal team this is; null for a teamspace. */
  personalUserId: number | null
  createdAt: string
}

export interface Member {
  userId: number
  email: string
  role: TeamRole
  joinedAt: string
}

export interface Membership {
  team: Team
  role: TeamRole
}

interface TeamRow {
  pk: number
  name: string
  plan: string
  personal_user_pk: number | null
  created_at: string
}

const toTeam = (row: TeamRow): Team => ({
  id: row.pk,
  name: row.name,
  plan: isPlan(row.plan) ? row.plan : 'free',
  personalUserId: row.personal_user_pk,
  createdAt: row.created_at,
})

/** A teamspace's name: what `lectern teams ...` and the dashboard call it. `@` is kept for personal teams, named by email. */
const TEAM_NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,62}[\p{L}\p{N}]$/u

export function checkTeamName(name: string): string {
  const trimmed = name.trim()
  if (!TEAM_NAME.test(trimmed)) {
    throw new LecternError('validation_error', `"${name}" is not a teamspace name: 2 to 64 letters, digits, spaces, dots, dashes or underscores, starting and ending with a letter or digit.`)
  }
  return trimmed
}

export interface TeamsRepository {
  /** Creates a teamspace owned by `ownerUserId` (validated name, unique). */
  create(input: { name: string; ownerUserId: number; plan: Plan }): Promise<Team>
  /** The user's personal team, created on first need (plan free, the user its owner). */
  personalTeam(userId: number): Promise<Team>
  byName(name: string): Promise<Team | undefined>
  byPk(pk: number): Promise<Team | undefined>
  /** The teamspace's plan; undefined when there is no such teamspace. Given the request's catalogue version, read once per version (migration 0021). */
  planOf(pk: number, catalogVersion?: number): Promise<Plan | undefined>
  list(): Promise<Team[]>
  /** The teams the user belongs to, personal team first. */
  membershipsOf(userId: number): Promise<Membership[]>
  /** The IDs of the teams whose private data the user may see. */
  teamIdsOf(userId: number): Promise<number[]>
  roleOf(teamPk: number, userId: number): Promise<TeamRole | undefined>
  members(teamPk: number): Promise<Member[]>
  /** Adds a member unless the team's plan allows no more (`membersAllowed`, read in the same transaction as the plan). */
  addMember(teamPk: number, userId: number, role: Exclude<TeamRole, 'owner'>, membersAllowed: (plan: Plan) => number): Promise<Member>
  setRole(teamPk: number, userId: number, role: Exclude<TeamRole, 'owner'>): Promise<Member>
  /** Removes a member (never the owner) and revokes their keys for the team, in one transaction. */
  removeMember(teamPk: number, userId: number): Promise<{ revokedKeys: number }>
  setPlan(teamPk: number, plan: Plan): Promise<Team>
  rename(teamPk: number, name: string): Promise<Team>
  /** The IDs of the team's private libraries, which must be removed (library/admin.ts) before the team. */
  libraryIdsOf(teamPk: number): Promise<string[]>
  /** Deletes a teamspace with its members, keys and invitations; its libraries must be gone (the foreign key refuses otherwise). */
  remove(teamPk: number): Promise<Team>
}

type MemberRow = { user_pk: number; email: string; role: TeamRole; created_at: string }
const toMember = (row: MemberRow): Member => ({ userId: row.user_pk, email: row.email, role: row.role, joinedAt: row.created_at })

export function createTeamsRepository(sql: Sql): TeamsRepository {
  const byPk = (pk: number) => sql.get<TeamRow>('SELECT * FROM teams WHERE pk = ?', [pk])
  const byName = (name: string) => sql.get<TeamRow>('SELECT * FROM teams WHERE name = ?', [name])
  const roleRow = (teamPk: number, userId: number) => sql.get<{ role: TeamRole }>('SELECT role FROM team_members WHERE team_pk = ? AND user_pk = ?', [teamPk, userId])
  const membersOf = (teamPk: number) =>
    sql.all<MemberRow>(
      `SELECT m.user_pk, u.email, m.role, m.created_at FROM team_members m JOIN users u ON u.pk = m.user_pk
       WHERE m.team_pk = ? ORDER BY m.role = 'owner' DESC, m.role = 'admin' DESC, u.email`,
      [teamPk],
    )
  const membershipsOf = (userId: number) =>
    sql.all<TeamRow & { role: TeamRole }>(
      `SELECT t.*, m.role FROM team_members m JOIN teams t ON t.pk = m.team_pk WHERE m.user_pk = ?
       ORDER BY t.personal_user_pk IS NULL, t.name`,
      [userId],
    )
  const plans = new VersionCache<number, Plan>()

  const requireTeam = async (pk: number): Promise<TeamRow> => {
    const row = await byPk(pk)
    if (!row) throw new LecternError('team_not_found', `No teamspace with ID ${pk}.`)
    return row
  }
  const requireUser = async (userId: number): Promise<string> => {
    const row = await sql.get<{ email: string }>('SELECT email FROM users WHERE pk = ?', [userId])
    if (!row) throw new LecternError('user_not_found', `No user with ID ${userId}.`)
    return row.email
  }
  const member = async (teamPk: number, userId: number): Promise<Member> => toMember((await membersOf(teamPk)).find((m) => m.user_pk === userId)!)
  const insertMember = (teamPk: number, userId: number, role: TeamRole, at: string) =>
    sql.run('INSERT INTO team_members (team_pk, user_pk, role, created_at) VALUES (?, ?, ?, ?)', [teamPk, userId, role, at])
  const insert = async (name: string, plan: Plan, personalUserPk: number | null, ownerUserId: number): Promise<Team> => {
    if (await byName(name)) throw new LecternError('validation_error', `A teamspace named "${name}" already exists.`)
    const now = nowIso()
    const row = (await sql.get<TeamRow>('INSERT INTO teams (name, plan, personal_user_pk, created_at) VALUES (?, ?, ?, ?) RETURNING *', [name, plan, personalUserPk, now]))!
    await insertMember(row.pk, ownerUserId, 'owner', now)
    return toTeam(row)
  }
  /** A member's current role, refusing a user who is none and the owner, whose role never changes. */
  const requireChangeableMember = async (teamPk: number, userId: number, refusal: string): Promise<void> => {
    await requireTeam(teamPk)
    const current = await roleRow(teamPk, userId)
    if (!current) throw new LecternError('user_not_found', `User ${userId} is not a member of this teamspace.`)
    if (current.role === 'owner') throw new LecternError('forbidden', refusal)
  }

  return {
    create: ({ name, ownerUserId, plan }) =>
      sql.transaction(async () => {
        await requireUser(ownerUserId)
        return insert(checkTeamName(name), plan, null, ownerUserId)
      }),
    personalTeam: (userId) =>
      sql.transaction(async () => {
        const existing = await sql.get<TeamRow>('SELECT * FROM teams WHERE personal_user_pk = ?', [userId])
        if (existing) return toTeam(existing)
        return insert(await requireUser(userId), 'free', userId, userId)
      }),
    async byName(name) {
      const row = await byName(name.trim())
      return row && toTeam(row)
    },
    async byPk(pk) {
      const row = await byPk(pk)
      return row && toTeam(row)
    },
    planOf: (pk, catalogVersion) =>
      plans.get(pk, catalogVersion, async () => {
        const row = await byPk(pk)
        return row && toTeam(row).plan
      }),
    list: async () => (await sql.all<TeamRow>('SELECT * FROM teams ORDER BY personal_user_pk IS NULL DESC, name')).map(toTeam),
    membershipsOf: async (userId) => (await membershipsOf(userId)).map((row) => ({ team: toTeam(row), role: row.role })),
    teamIdsOf: async (userId) => (await membershipsOf(userId)).map((row) => row.pk),
    roleOf: async (teamPk, userId) => (await roleRow(teamPk, userId))?.role,
    async members(teamPk) {
      await requireTeam(teamPk)
      return (await membersOf(teamPk)).map(toMember)
    },
    addMember: (teamPk, userId, role, membersAllowed) =>
      sql.transaction(async () => {
        const team = toTeam(await requireTeam(teamPk))
        const email = await requireUser(userId)
        if (team.personalUserId !== null) throw new LecternError('forbidden', `${team.name} is a personal space; members join teamspaces.`)
        if (await roleRow(teamPk, userId)) throw new LecternError('validation_error', `${email} is already a member of ${team.name}.`)
        const limit = membersAllowed(team.plan)
        const { n } = (await sql.get<{ n: number }>('SELECT count(*) AS n FROM team_members WHERE team_pk = ?', [teamPk]))!
        if (n >= limit) {
          throw new LecternError('forbidden', `The ${team.plan} plan of ${team.name} allows ${limit} member${limit === 1 ? '' : 's'}; ask the operator for a larger plan.`)
        }
        await insertMember(teamPk, userId, role, nowIso())
        return member(teamPk, userId)
      }),
    setRole: (teamPk, userId, role) =>
      sql.transaction(async () => {
        await requireChangeableMember(teamPk, userId, 'The owner keeps the owner role.')
        await sql.run('UPDATE team_members SET role = ? WHERE team_pk = ? AND user_pk = ?', [role, teamPk, userId])
        return member(teamPk, userId)
      }),
    removeMember: (teamPk, userId) =>
      sql.transaction(async () => {
        await requireChangeableMember(
          teamPk,
          userId,
          'The owner cannot be removed; to end the teamspace, its owner deletes it with `DELETE /api/teams/:team` (signed in as the owner), or the operator with `lectern teams delete <team>`.',
        )
        await sql.run('DELETE FROM team_members WHERE team_pk = ? AND user_pk = ?', [teamPk, userId])
        const { changes } = await sql.run('UPDATE api_keys SET revoked_at = ? WHERE team_pk = ? AND user_pk = ? AND revoked_at IS NULL', [nowIso(), teamPk, userId])
        return { revokedKeys: changes }
      }),
    async setPlan(teamPk, plan) {
      await requireTeam(teamPk)
      await sql.run('UPDATE teams SET plan = ? WHERE pk = ?', [plan, teamPk])
      return toTeam((await byPk(teamPk))!)
    },
    rename: (teamPk, name) =>
      sql.transaction(async () => {
        const team = toTeam(await requireTeam(teamPk))
        if (team.personalUserId !== null) throw new LecternError('forbidden', 'A personal space is named by its email and cannot be renamed.')
        const next = checkTeamName(name)
        const taken = await byName(next)
        if (taken && taken.pk !== teamPk) throw new LecternError('validation_error', `A teamspace named "${next}" already exists.`)
        await sql.run('UPDATE teams SET name = ? WHERE pk = ?', [next, teamPk])
        return toTeam((await byPk(teamPk))!)
      }),
    libraryIdsOf: async (teamPk) => (await sql.all<{ id: string }>('SELECT id FROM libraries WHERE team_pk = ? ORDER BY id', [teamPk])).map((row) => row.id),
    async remove(teamPk) {
      const team = toTeam(await requireTeam(teamPk))
      await sql.run('DELETE FROM teams WHERE pk = ?', [teamPk])
      return team
    },
  }
}
