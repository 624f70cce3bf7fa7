/**
 * Who may read a source through the install's stored connections (git, Confluence, Notion; added
 * with `lectern connections add` or the dashboard's Settings).
 *
 * On-premise every caller is the install's own, so every add may use them. In cloud mode they
 * are the operator's credentials: a tenant (any caller but an insider, see access.ts) reads
 * only with the token it submits, else a tenant could index the operator's private
 * repositories, spaces and pages. A job runs after its caller has gone, so it asks of its
 * library instead: in cloud mode only the install's own private libraries (private, of no
 * teamspace) read through them; a teamspace's library or a public one never does.
 */
import { isInsider, type Caller } from '../access.js'
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'
import type { Library } from '../store/libraries.js'

export function callerMayUseStoredConnections(caller: Caller, mode: Mode): boolean {
  return mode === 'onprem' || isInsider(caller)
}

export function libraryMayUseStoredConnections(library: Pick<Library, 'isPrivate' | 'teamPk'>, mode: Mode): boolean {
  return mode === 'onprem' || (library.isPrivate && library.teamPk === null)
}

/** The refusal of a workspace source (Confluence, Notion), which can only be read through a stored connection. */
export function storedConnectionRefusal(source: string): LecternError {
  return new LecternError('forbidden', `In cloud mode the install's stored connections are the operator's; a ${source} source cannot be added with them.`)
}
