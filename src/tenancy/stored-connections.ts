/**
 * Whose stored connections (git, Confluence, Notion) a source reads through: the one place that
 * decides.
 *
 * On-premise every caller is the install's own, so every add reads through the install's
 * connections (`lectern connections add`, the dashboard's Settings). In cloud mode those are the
 * operator's credentials: only an insider adds through them. A tenant adds through its own
 * teamspace's connections (with a key of that teamspace), never another teamspace's nor the
 * install's, else a tenant could index the operator's or another tenant's private repositories,
 * spaces and pages. A job runs after its caller has gone, so it asks of its library instead: a
 * teamspace's library reads through that teamspace's connections, the install's own private
 * libraries through the install's, a public library through none.
 */
import { isInsider, type Caller } from '../library/access.js'
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'
import { INSTALL_CONNECTIONS, type ConnectionScope } from '../store/connections.js'
import type { Library } from '../store/libraries.js'
import type { Submitter } from './private-sources.js'

/** The connections an add of this caller may read through; undefined when none. */
export function callerConnectionScope(caller: Caller, mode: Mode): ConnectionScope | undefined {
  if (mode === 'onprem' || isInsider(caller)) return INSTALL_CONNECTIONS
  if (caller.kind === 'api-key' && caller.teamId !== null) return { teamPk: caller.teamId }
  return undefined
}

/** The connections a submission may name: a dashboard member's teamspace's, else its caller's. */
export function submitterConnectionScope(submitter: Submitter): ConnectionScope | undefined {
  return submitter.team ? { teamPk: submitter.team.team.id } : callerConnectionScope(submitter.caller, submitter.mode)
}

/** The connections a job of this library may read through; undefined when none. */
export function libraryConnectionScope(library: Pick<Library, 'isPrivate' | 'teamPk'>, mode: Mode): ConnectionScope | undefined {
  if (mode === 'onprem') return INSTALL_CONNECTIONS
  if (library.teamPk !== null) return { teamPk: library.teamPk }
  return library.isPrivate ? INSTALL_CONNECTIONS : undefined
}

/** The refusal of a workspace source (Confluence, Notion), which can only be read through a stored connection. */
export function storedConnectionRefusal(source: string): LecternError {
  return new LecternError('forbidden', `In cloud mode the install's stored connections are the operator's; a ${source} source is added with an API key of a teamspace, through that teamspace's own connections.`)
}
