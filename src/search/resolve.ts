/**
 * From a library ID as a client wrote it to the library version that answers it, with every
 * refusal of spec 7: malformed (400), unknown (404), moved (301 + redirectUrl), unknown tag (404
 * listing the tags), not yet finalized (202), failed (the status of its reason's code).
 *
 * Visibility comes first (library/visibility.ts): a library the caller may not see, and a redirect
 * to one, answer exactly like an unknown ID, before the library's versions, state or redirects are
 * read. A library it sees but its teamspace's policy leaves out is refused next (403), before its
 * versions or state are read either.
 */
import type { Caller } from '../library/access.js'
import { accessDenied, asksPolicy, canSeeLibrary, decide, storedPolicySubject } from '../library/visibility.js'
import { ERROR_CODES, LecternError, type ErrorCode } from '../errors.js'
import { formatLibraryId, parseLibraryId, type LibraryRef } from '../library/id.js'
import type { LibrariesRepository, Library, LibraryVersion } from '../store/libraries.js'
import type { PolicySubject } from '../tenancy/policies.js'

export interface ResolvedLibrary {
  ref: LibraryRef
  library: Library
  version: LibraryVersion
}

const withoutV = (tag: string) => tag.replace(/^v(?=\d)/i, '')

/**
 * The answer for an ID that names no library the caller may see, pointing at the search of the
 * caller's own surface. `blocked`: the library that exists but is kept from the caller, which the
 * answer never tells it and the audit log records.
 */
export const libraryNotFound = (id: string, caller: Caller, blocked?: Pick<Library, 'id'>): LecternError =>
  new LecternError('library_not_found', `Library ${id} not found. Search for it with ${caller.kind === 'local' ? '`lectern search <name>`' : '/api/v2/libs/search'}.`, {}, { blockedLibrary: blocked?.id })

/** Finds a library the caller may see by ID, following redirects as a 301 error. */
export async function findLibrary(libraries: LibrariesRepository, rawId: string, caller: Caller): Promise<{ ref: LibraryRef; library: Library }> {
  const ref = parseLibraryId(rawId)
  const library = await libraries.byId(ref.id)
  if (library) {
    if (!canSeeLibrary(caller, library)) throw libraryNotFound(ref.id, caller, library)
    return { ref, library }
  }
  const moved = await libraries.redirectOf(ref.id)
  const target = moved === undefined ? undefined : await libraries.byId(moved)
  if (moved !== undefined && target && canSeeLibrary(caller, target)) {
    const redirectUrl = formatLibraryId({ id: moved, version: ref.version })
    throw new LecternError('library_redirected', `Library ${ref.id} has moved to ${moved}.`, { redirectUrl })
  }
  throw libraryNotFound(ref.id, caller, target)
}

export async function findVersion(libraries: LibrariesRepository, library: Library, tag: string | undefined): Promise<LibraryVersion> {
  const versions = await libraries.versions(library.pk)
  if (tag === undefined) return versions.find((v) => v.tag === '')!
  const version = versions.find((v) => v.tag === tag) ?? versions.find((v) => v.tag !== '' && withoutV(v.tag) === withoutV(tag))
  if (version) return version
  const tags = versions.filter((v) => v.tag !== '').map((v) => v.tag)
  throw new LecternError(
    'tag_not_found',
    tags.length > 0
      ? `Version "${tag}" of ${library.id} not found. Available versions: ${tags.join(', ')}.`
      : `Version "${tag}" of ${library.id} not found. The library has no versions besides its default branch.`,
  )
}

/** Failure reasons a client can act on: a failed version answers with their status. */
const CLIENT_FAILURES = new Set<ErrorCode>(['source_unreachable', 'no_code_found', 'library_too_large', 'tag_not_found', 'timeout', 'disk_full', 'cancelled'])
/** Failures whose stored reason Lectern wrote itself, naming no URL, host or server path. */
const OWN_REASONS = new Set<ErrorCode>(['no_code_found', 'library_too_large', 'tag_not_found', 'cancelled'])

const isErrorCode = (code: string | null): code is ErrorCode => code !== null && code in ERROR_CODES

/** A version that can serve snippets: it has a live set, even while a refresh rebuilds it. */
export function requireServable(library: Library, version: LibraryVersion, caller: Caller): number {
  if (version.currentSet !== null) return version.currentSet
  const name = formatLibraryId({ id: library.id, version: version.tag || undefined })
  if (version.state === 'initial' || version.state === 'processing') {
    throw new LecternError('library_not_finalized', `Library ${name} is still being processed; retry in a little while.`)
  }
  throw failedVersion(name, version, caller)
}

/**
 * The error a failed version answers with. The stored reason is raw (git's stderr, an exception
 * message) and may name hosts or server paths: only reasons Lectern wrote itself are quoted;
 * otherwise the client gets the category, and API-key holders the reason in /api/parse-status.
 * The CLI works on the data directory itself: it is told the reason and the commands to run.
 */
function failedVersion(name: string, version: LibraryVersion, caller: Caller): LecternError {
  const code = version.errorCode
  if (caller.kind === 'local') {
    const reason = version.errorMessage ? `: ${version.errorMessage.replace(/\.?$/, '.')}` : '.'
    return new LecternError(isErrorCode(code) && CLIENT_FAILURES.has(code) ? code : 'processing_failed', `Library ${name} failed to process${reason} Retry with \`lectern refresh ${name}\`; \`lectern jobs\` lists recent failures.`)
  }
  const retry = `Retry with POST /api/v1/refresh or \`lectern refresh ${name}\``
  if (isErrorCode(code) && CLIENT_FAILURES.has(code)) {
    if (OWN_REASONS.has(code) && version.errorMessage) return new LecternError(code, version.errorMessage)
    return new LecternError(code, `Library ${name} failed to process: ${ERROR_CODES[code].summary} Check the source, then ${retry[0].toLowerCase()}${retry.slice(1)}.`)
  }
  return new LecternError(
    'processing_failed',
    `Library ${name} failed to process. ${retry}; API-key holders see the reason in /api/parse-status.`,
  )
}

/** The library version a client's ID names and the set that serves it, or the refusal the spec gives. */
export async function resolveLibraryVersion(
  libraries: LibrariesRepository,
  rawId: string,
  caller: Caller,
  /** The library as policies see it, asked only when a policy filters the caller. */
  subject: (library: Library) => Promise<PolicySubject> = (library) => storedPolicySubject(libraries, library),
): Promise<ResolvedLibrary & { setPk: number }> {
  const { ref, library } = await findLibrary(libraries, rawId, caller)
  const asked = asksPolicy(caller) ? await subject(library) : undefined
  if (decide(caller, library, () => asked!) === 'denied') throw accessDenied(library)
  const version = await findVersion(libraries, library, ref.version)
  return { ref, library, version, setPk: requireServable(library, version, caller) }
}
