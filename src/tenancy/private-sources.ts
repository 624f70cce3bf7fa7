/**
 * Private libraries of a teamspace (cloud mode): who may add one, and the ID it gets.
 *
 * A private library's ID carries its teamspace (`/acme/widgets--t7` for teamspace 7), so two
 * teamspaces adding the same private repository get two libraries, and an add never collides
 * with, and so never reveals, another teamspace's private library. Public IDs ending in that
 * suffix are refused in cloud mode, so a public add cannot take a private library's ID first.
 */
import type { Caller } from '../library/access.js'
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'
import type { Team, TeamsRepository } from '../store/teams.js'
import { PLAN_LIMITS } from './plans.js'
import { can } from './roles.js'
import type { TeamRole } from '../store/teams.js'

/** The teamspace a private library is added for. */
export interface TeamOwner {
  teamPk: number
}

const SEGMENT_MAX = 100
const TEAM_SUFFIX = /--t\d+$/

const suffixOf = (teamPk: number) => `--t${teamPk}`

/** A library ID's last segment (or a bare name) scoped to the teamspace, within the segment length. */
export function scopedName(name: string, teamPk: number): string {
  const suffix = suffixOf(teamPk)
  return `${name.slice(0, SEGMENT_MAX - suffix.length)}${suffix}`
}

/** `/owner/name` as the teamspace's own: `/owner/name--t<team>`. */
export function scopedLibraryId(id: string, teamPk: number): string {
  const at = id.lastIndexOf('/')
  return `${id.slice(0, at + 1)}${scopedName(id.slice(at + 1), teamPk)}`
}

/** Refuses, in cloud mode, a public library whose ID has the form kept for teamspaces' private libraries. */
export function refuseReservedId(id: string, mode: Mode): void {
  if (mode === 'cloud' && TEAM_SUFFIX.test(id)) {
    throw new LecternError('validation_error', `Library IDs ending in "--t<number>" name teamspaces' private libraries; ${id} cannot be added as a public library.`)
  }
}

/** Who submits a library over HTTP: private sources of a teamspace's key belong to the teamspace. */
export interface Submitter {
  caller: Caller
  mode: Mode
  /**
   * A member adding from the teamspace's dashboard (a session, not a key of the teamspace): the
   * teamspace and their role there, which place the source as a key of that teamspace would.
   */
  team?: { team: Team; role: TeamRole }
}

/**
 * Where a submission goes: its final library ID and, for a private source of a teamspace, its
 * owner. Without a submitter (the CLI on the data directory) the ID is kept as it is.
 */
export async function placeSubmission(
  teams: TeamsRepository,
  submitter: Submitter | undefined,
  id: string,
  isPrivate: boolean,
  source: PrivateSourceKind = 'other',
): Promise<{ id: string; owner?: TeamOwner }> {
  if (!submitter) return { id }
  const owner = !isPrivate
    ? undefined
    : submitter.team
      ? teamPrivateSourceOwner(submitter.team.team, submitter.team.role, source)
      : await privateSourceOwner(teams, submitter.caller, submitter.mode, source)
  if (owner) return { id: scopedLibraryId(id, owner.teamPk), owner }
  refuseReservedId(id, submitter.mode)
  return { id }
}

/** A git repository, whose refusals keep the spec's wording, or any other private source. */
export type PrivateSourceKind = 'repository' | 'other'

/**
 * The teamspace a private source is added for, after checking the caller may: cloud mode, an API
 * key of a teamspace, whose user is its owner or an admin, on a plan with private sources.
 * Undefined when the caller has no teamspace (on-premise, or a key of the install alone): the
 * library is then private to the install, as before teamspaces.
 */
export async function privateSourceOwner(teams: TeamsRepository, caller: Caller, mode: Mode, source: PrivateSourceKind = 'other'): Promise<TeamOwner | undefined> {
  if (mode !== 'cloud' || caller.kind !== 'api-key' || caller.teamId === null) return undefined
  const team = await teams.byPk(caller.teamId)
  if (!team) throw new LecternError('team_not_found', 'The teamspace of this API key no longer exists.')
  return teamPrivateSourceOwner(team, caller.userId === null ? undefined : await teams.roleOf(team.id, caller.userId), source)
}

/** The teamspace as the owner of a private source its member (of `role`) adds: owners and admins, on a plan with private sources. */
export function teamPrivateSourceOwner(team: Team, role: TeamRole | undefined, source: PrivateSourceKind = 'other'): TeamOwner {
  if (!role || !can(role, 'managePrivateSources')) {
    throw new LecternError('forbidden', `Only team owners and admins may add private ${source === 'repository' ? 'repositories' : 'sources'}.`)
  }
  if (!PLAN_LIMITS[team.plan].privateSources) {
    // The spec's wording for repositories; other private sources say what they are and who changes the plan.
    throw new LecternError(
      'forbidden',
      source === 'repository'
        ? 'Private repositories need a pro or team plan.'
        : 'Private sources (uploads, Confluence, Notion) need a pro or enterprise plan; the operator sets plans with `lectern teams plan set`.',
    )
  }
  return { teamPk: team.id }
}
