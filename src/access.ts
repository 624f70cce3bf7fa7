/**
 * Who is asking, and what they may see. This is the one place visibility is decided: resolution
 * (search/resolve.ts), search, parse-status, MCP and the CLI all ask here, before a library's
 * versions, state or redirects are looked at, so a library a caller may not see answers exactly
 * like one that does not exist (spec 7.2: "No such library, or no access to it").
 *
 * Today every caller of the install itself (an API key, a signed-in user, the CLI on the data
 * directory) sees every library; teamspaces (issue 13) will narrow `canSeeLibrary` per library
 * and per team, with callers carrying their team, without any path having to change.
 */
import { ERROR_CODES, type ErrorCode } from './errors.js'
import { redact } from './sources/git.js'
import type { Library } from './store/libraries.js'
import type { Role } from './store/users.js'

export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'api-key'; keyId: number }
  | { kind: 'session'; userId: number; role: Role }
  /** A CLI command or the stdio MCP server, working on the data directory itself. */
  | { kind: 'local' }

export const ANONYMOUS: Caller = { kind: 'anonymous' }
export const LOCAL: Caller = { kind: 'local' }

/** The caller of an HTTP request: its API key first, else its session, else nobody. */
export function callerOf(request: { apiKey: { id: number } | null; user: { id: number; role: Role } | null }): Caller {
  if (request.apiKey) return { kind: 'api-key', keyId: request.apiKey.id }
  if (request.user) return { kind: 'session', userId: request.user.id, role: request.user.role }
  return ANONYMOUS
}

const isInsider = (caller: Caller): boolean => caller.kind !== 'anonymous'

export function canSeeLibrary(caller: Caller, library: Pick<Library, 'isPrivate'>): boolean {
  return !library.isPrivate || isInsider(caller)
}

/**
 * Why a job failed, as this caller may read it. A stored reason is raw (git's stderr, an
 * exception message) and may name clone URLs, hosts or server paths: outsiders get the code and
 * its catalogue summary, insiders the reason with any credentials redacted.
 */
export function describeFailure(caller: Caller, code: string, reason: string | null): { error: string; message: string } {
  if (isInsider(caller) && reason) return { error: code, message: redact(reason) }
  return { error: code, message: code in ERROR_CODES ? ERROR_CODES[code as ErrorCode].summary : ERROR_CODES.internal_error.summary }
}

/** Whether the caller may read a running job's progress lines, which name clone URLs and files. */
export const canSeeJobProgress = isInsider
