/**
 * Who is asking: the caller of a request, a CLI command or the stdio MCP server, and what it may
 * read of jobs. Whether it may see or ask a library is decided in visibility.ts, from who it is
 * and what the rules settled on it there.
 *
 * On-premise every caller of the install (an API key, a signed-in user, the CLI on the data
 * directory) is an insider. In cloud mode key holders and users are tenants, and only the
 * operator (an admin session, a key of no teamspace, the CLI) is an insider. A key of no
 * teamspace is the operator's in cloud mode: only the CLI (`lectern keys create` without
 * `--user`) and the admin's dashboard create one, and a teamspace's keys go with it.
 */
import { ERROR_CODES, type ErrorCode } from '../errors.js'
import { redact } from '../sources/git.js'
import type { Mode } from '../config.js'
import type { Library } from '../store/libraries.js'
import type { Role } from '../store/users.js'
import type { Policy } from '../store/policies.js'

/** What the rules settled on the caller for one request (visibility.ts); absent: nothing. */
interface Restricted {
  /** The libraries (pks) restricted to others than this caller (on-premise access control). */
  closed?: ReadonlySet<number>
}

export type Caller =
  | ({ kind: 'anonymous' } & Restricted)
  | ({
      kind: 'api-key'
      keyId: number
      /** The key's user and teamspace (cloud mode); null for a key of the install alone. */
      userId: number | null
      teamId: number | null
      /** Whether the caller is trusted with the install's own private data (on-premise, or the operator's key). */
      insider: boolean
      /**
       * The teamspace policy its requests go through (a teamspace's key, in the cloud), null when
       * it filters nothing; absent until the request's rules are settled (visibility.ts).
       */
      policy?: Policy | null
    } & Restricted)
  | ({
      kind: 'session'
      userId: number
      role: Role
      /** The teamspaces the user belongs to. */
      teamIds: readonly number[]
      insider: boolean
    } & Restricted)
  /** A CLI command or the stdio MCP server, working on the data directory itself. */
  | { kind: 'local' }

export const ANONYMOUS: Caller = { kind: 'anonymous' }
export const LOCAL: Caller = { kind: 'local' }

interface RequestCredentials {
  apiKey: { id: number; userId: number | null; teamId: number | null } | null
  user: { id: number; role: Role } | null
}

/**
 * The caller of an HTTP request: its API key first, else its session, else nobody. `teamIdsOf`
 * is asked for a session's teamspaces only in cloud mode, where they decide what it sees.
 */
export async function callerOf(request: RequestCredentials, mode: Mode, teamIdsOf: (userId: number) => Promise<readonly number[]>): Promise<Caller> {
  if (request.apiKey) {
    const { id, userId, teamId } = request.apiKey
    return { kind: 'api-key', keyId: id, userId, teamId, insider: mode === 'onprem' || teamId === null }
  }
  if (request.user) {
    const { id, role } = request.user
    const operator = mode === 'onprem' || role === 'admin'
    return { kind: 'session', userId: id, role, teamIds: mode === 'cloud' ? await teamIdsOf(id) : [], insider: operator }
  }
  return ANONYMOUS
}

export const isInsider = (caller: Caller): boolean => caller.kind === 'local' || (caller.kind !== 'anonymous' && caller.insider)

/** Whether the caller belongs to the teamspace: a key of it, or a member signed in. */
export function isInTeam(caller: Caller, teamPk: number): boolean {
  if (caller.kind === 'api-key') return caller.teamId === teamPk
  if (caller.kind === 'session') return caller.teamIds.includes(teamPk)
  return false
}

/** A job's library, as far as reading its jobs' details goes; undefined for a job of no library. */
type JobLibrary = Pick<Library, 'teamPk'> | undefined

/**
 * Whether the caller may read a job's details (raw failure reasons, progress lines), which name
 * clone URLs, hosts and server paths: insiders for any job, a teamspace's keys and members for
 * the jobs of its own libraries, whose sources it gave. Others (tenants reading a public library
 * the operator added) would learn the operator's hosts and paths.
 */
export function canSeeJobDetails(caller: Caller, library: JobLibrary): boolean {
  if (isInsider(caller)) return true
  return library?.teamPk != null && isInTeam(caller, library.teamPk)
}

/**
 * Why a job failed, as this caller may read it. A stored reason is raw (git's stderr, an
 * exception message): those who may read the job's details (canSeeJobDetails) get the reason
 * with any credentials redacted, others the code and its catalogue summary.
 */
export function describeFailure(caller: Caller, library: JobLibrary, code: string, reason: string | null): { error: string; message: string } {
  if (canSeeJobDetails(caller, library) && reason) return { error: code, message: redact(reason) }
  return { error: code, message: code in ERROR_CODES ? ERROR_CODES[code as ErrorCode].summary : ERROR_CODES.internal_error.summary }
}
