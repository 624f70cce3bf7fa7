/**
 * Teamspaces and their members (cloud mode; migration 0014). A team has exactly one owner, kept
 * by a unique index; a user's personal team is named by their email and holds their keys and
 * private libraries when they work alone. A plan's member limit (src/tenancy/plans.ts, given by
 * the caller) is enforced here, in the transaction that adds a member, so no path can add one past
 * it; who may ask for a change is the caller's business (src/tenancy/).
 */
import { LecternError } from '../errors.js'
import type { Db } from './db.js'
import { nowIso } from './db.js'
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
  create(input: { name: string; ownerUserId: number; plan: Plan }): Team
  /** The user's personal team, created on first need (plan free, the user its owner). */
  personalTeam(userId: number): Team
  byName(name: string): Team | undefined
  byPk(pk: number): Team | undefined
  /** The teamspace's plan; undefined when there is no such teamspace. Given the request's catalogue version, read once per version (migration 0021). */
  planOf(pk: number, catalogVersion?: number): Plan | undefined
  list(): Team[]
  /** The teams the user belongs to, personal team first. */
  membershipsOf(userId: number): Membership[]
  /** The IDs of the teams whose private data the user may see. */
  teamIdsOf(userId: number): number[]
  roleOf(teamPk: number, userId: number): TeamRole | undefined
  members(teamPk: number): Member[]
  /** Adds a member as admin or developer, within the plan's member limit (403 forbidden past it). */
  /** Adds a member unless the team's plan allows no more (`membersAllowed`, read in the same transaction as the plan). */
  addMember(teamPk: number, userId: number, role: Exclude<TeamRole, 'owner'>, membersAllowed: (plan: Plan) => number): Member
  setRole(teamPk: number, userId: number, role: Exclude<TeamRole, 'owner'>): Member
  /** Removes a member (never the owner) and revokes their keys for the team, in one transaction. */
  removeMember(teamPk: number, userId: number): { revokedKeys: number }
  setPlan(teamPk: number, plan: Plan): Team
  rename(teamPk: number, name: string): Team
  /** The IDs of the team's private libraries, which must be removed (library/admin.ts) before the team. */
  libraryIdsOf(teamPk: number): string[]
  /** Deletes a teamspace with its members, keys and invitations; its libraries must be gone (the foreign key refuses otherwise). */
  remove(teamPk: number): Team
}

export function createTeamsRepository(db: Db): TeamsRepository {
  const byPk = db.prepare<[number], TeamRow>('SELECT * FROM teams WHERE pk = ?')
  const byName = db.prepare<[string], TeamRow>('SELECT * FROM teams WHERE name = ?')
  const personalOf = db.prepare<[number], TeamRow>('SELECT * FROM teams WHERE personal_user_pk = ?')
  const userEmail = db.prepare<[number], { email: string }>('SELECT email FROM users WHERE pk = ?')
  const insertTeam = db.prepare('INSERT INTO teams (name, plan, personal_user_pk, created_at) VALUES (?, ?, ?, ?)')
  const insertMember = db.prepare('INSERT INTO team_members (team_pk, user_pk, role, created_at) VALUES (?, ?, ?, ?)')
  const memberRow = db.prepare<[number, number], { role: TeamRole }>('SELECT role FROM team_members WHERE team_pk = ? AND user_pk = ?')
  const memberCount = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM team_members WHERE team_pk = ?')
  const membersOf = db.prepare<[number], { user_pk: number; email: string; role: TeamRole; created_at: string }>(
    `SELECT m.user_pk, u.email, m.role, m.created_at FROM team_members m JOIN users u ON u.pk = m.user_pk
     WHERE m.team_pk = ? ORDER BY m.role = 'owner' DESC, m.role = 'admin' DESC, u.email`,
  )
  const membershipsOf = db.prepare<[number], TeamRow & { role: TeamRole }>(
    `SELECT t.*, m.role FROM team_members m JOIN teams t ON t.pk = m.team_pk WHERE m.user_pk = ?
     ORDER BY t.personal_user_pk IS NULL, t.name`,
  )
  const updateRole = db.prepare('UPDATE team_members SET role = ? WHERE team_pk = ? AND user_pk = ?')
  const deleteMember = db.prepare('DELETE FROM team_members WHERE team_pk = ? AND user_pk = ?')
  const revokeKeys = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE team_pk = ? AND user_pk = ? AND revoked_at IS NULL')
  const plans = new VersionCache<number, Plan>()

  const requireTeam = (pk: number): TeamRow => {
    const row = byPk.get(pk)
    if (!row) throw new LecternError('team_not_found', `No teamspace with ID ${pk}.`)
    return row
  }
  const requireUser = (userId: number): string => {
    const row = userEmail.get(userId)
    if (!row) throw new LecternError('user_not_found', `No user with ID ${userId}.`)
    return row.email
  }
  const member = (teamPk: number, userId: number): Member => {
    const row = membersOf.all(teamPk).find((m) => m.user_pk === userId)!
    return { userId: row.user_pk, email: row.email, role: row.role, joinedAt: row.created_at }
  }
  const insert = (name: string, plan: Plan, personalUserPk: number | null, ownerUserId: number): Team => {
    if (byName.get(name)) throw new LecternError('validation_error', `A teamspace named "${name}" already exists.`)
    const now = nowIso()
    const { lastInsertRowid } = insertTeam.run(name, plan, personalUserPk, now)
    insertMember.run(Number(lastInsertRowid), ownerUserId, 'owner', now)
    return toTeam(byPk.get(Number(lastInsertRowid))!)
  }

  return {
    create: db.transaction(({ name, ownerUserId, plan }: { name: string; ownerUserId: number; plan: Plan }) => {
      requireUser(ownerUserId)
      return insert(checkTeamName(name), plan, null, ownerUserId)
    }),
    personalTeam: db.transaction((userId: number) => {
      const existing = personalOf.get(userId)
      if (existing) return toTeam(existing)
      return insert(requireUser(userId), 'free', userId, userId)
    }),
    byName: (name) => {
      const row = byName.get(name.trim())
      return row && toTeam(row)
    },
    byPk: (pk) => {
      const row = byPk.get(pk)
      return row && toTeam(row)
    },
    planOf: (pk, catalogVersion) =>
      plans.get(pk, catalogVersion, () => {
        const row = byPk.get(pk)
        return row && toTeam(row).plan
      }),
    list: () => (db.prepare('SELECT * FROM teams ORDER BY personal_user_pk IS NULL DESC, name').all() as TeamRow[]).map(toTeam),
    membershipsOf: (userId) => membershipsOf.all(userId).map((row) => ({ team: toTeam(row), role: row.role })),
    teamIdsOf: (userId) => membershipsOf.all(userId).map((row) => row.pk),
    roleOf: (teamPk, userId) => memberRow.get(teamPk, userId)?.role,
    members: (teamPk) => {
      requireTeam(teamPk)
      return membersOf.all(teamPk).map((row) => ({ userId: row.user_pk, email: row.email, role: row.role, joinedAt: row.created_at }))
    },
    addMember: db.transaction((teamPk: number, userId: number, role: Exclude<TeamRole, 'owner'>, membersAllowed: (plan: Plan) => number) => {
      const team = toTeam(requireTeam(teamPk))
      const email = requireUser(userId)
      if (team.personalUserId !== null) throw new LecternError('forbidden', `${team.name} is a personal space; members join teamspaces.`)
      if (memberRow.get(teamPk, userId)) throw new LecternError('validation_error', `${email} is already a member of ${team.name}.`)
      const limit = membersAllowed(team.plan)
      if (memberCount.get(teamPk)!.n >= limit) {
        throw new LecternError('forbidden', `The ${team.plan} plan of ${team.name} allows ${limit} member${limit === 1 ? '' : 's'}; ask the operator for a larger plan.`)
      }
      insertMember.run(teamPk, userId, role, nowIso())
      return member(teamPk, userId)
    }),
    setRole: db.transaction((teamPk: number, userId: number, role: Exclude<TeamRole, 'owner'>) => {
      requireTeam(teamPk)
      const current = memberRow.get(teamPk, userId)
      if (!current) throw new LecternError('user_not_found', `User ${userId} is not a member of this teamspace.`)
      if (current.role === 'owner') throw new LecternError('forbidden', 'The owner keeps the owner role.')
      updateRole.run(role, teamPk, userId)
      return member(teamPk, userId)
    }),
    removeMember: db.transaction((teamPk: number, userId: number) => {
      requireTeam(teamPk)
      const current = memberRow.get(teamPk, userId)
      if (!current) throw new LecternError('user_not_found', `User ${userId} is not a member of this teamspace.`)
      if (current.role === 'owner') throw new LecternError('forbidden', 'The owner cannot be removed; to end the teamspace, its owner deletes it with `DELETE /api/teams/:team` (signed in as the owner), or the operator with `lectern teams delete <team>`.')
      deleteMember.run(teamPk, userId)
      return { revokedKeys: revokeKeys.run(nowIso(), teamPk, userId).changes }
    }),
    setPlan(teamPk, plan) {
      requireTeam(teamPk)
      db.prepare('UPDATE teams SET plan = ? WHERE pk = ?').run(plan, teamPk)
      return toTeam(byPk.get(teamPk)!)
    },
    rename: db.transaction((teamPk: number, name: string) => {
      const team = toTeam(requireTeam(teamPk))
      if (team.personalUserId !== null) throw new LecternError('forbidden', 'A personal space is named by its email and cannot be renamed.')
      const next = checkTeamName(name)
      const taken = byName.get(next)
      if (taken && taken.pk !== teamPk) throw new LecternError('validation_error', `A teamspace named "${next}" already exists.`)
      db.prepare('UPDATE teams SET name = ? WHERE pk = ?').run(next, teamPk)
      return toTeam(byPk.get(teamPk)!)
    }),
    libraryIdsOf: (teamPk) => db.prepare<[number], { id: string }>('SELECT id FROM libraries WHERE team_pk = ? ORDER BY id').all(teamPk).map((row) => row.id),
    remove(teamPk) {
      const team = toTeam(requireTeam(teamPk))
      db.prepare('DELETE FROM teams WHERE pk = ?').run(teamPk)
      return team
    },
  }
}
