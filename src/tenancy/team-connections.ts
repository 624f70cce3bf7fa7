/**
 * A teamspace's own connections (cloud mode): the Confluence sites, Notion workspaces and private
 * git hosts its private libraries read through (tenancy/stored-connections.ts). Its owners and
 * admins add and remove them, on a plan with private sources; every member lists them, without
 * tokens. A connection's host goes through the private-address guard when it is stored, as any
 * source's does when it is added, so a tenant cannot point one at the operator's network; a name
 * that does not resolve yet is stored, as an add of such a repository is accepted, and a job
 * reading through it fails with source_unreachable while it does not.
 */
import type { AuditContext } from '../audit/log.js'
import { addConnection, checkedBaseUrl, removeConnection, type ConnectionInput } from '../sources/connections.js'
import { LecternError } from '../errors.js'
import { admitHost, type AddressGuard } from '../sources/address-guard.js'
import type { Connection } from '../store/connections.js'
import type { Store } from '../store/index.js'
import { PLAN_LIMITS } from './plans.js'
import { requirePermission, type TeamAccess } from './teamspaces.js'

export const teamScope = ({ team }: TeamAccess) => ({ teamPk: team.id })

export async function addTeamConnection(store: Store, context: AuditContext, guard: AddressGuard | undefined, access: TeamAccess, input: ConnectionInput): Promise<Connection> {
  requirePermission(access, 'managePrivateSources')
  if (!PLAN_LIMITS[access.team.plan].privateSources) throw new LecternError('forbidden', 'Connections to private sources need a pro or team plan.')
  const baseUrl = checkedBaseUrl(input, guard)
  if (guard) await admitHost(new URL(baseUrl).hostname, guard, `Connecting to ${baseUrl}`)
  return await addConnection(store, context, teamScope(access), input, guard)
}

export async function removeTeamConnection(store: Store, context: AuditContext, access: TeamAccess, name: string): Promise<Connection> {
  requirePermission(access, 'managePrivateSources')
  return await removeConnection(store, context, teamScope(access), name)
}
