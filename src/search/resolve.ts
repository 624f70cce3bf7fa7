/**
 * From a library ID as a client wrote it to the library version that answers it, with every
 * refusal of spec 7: malformed (400), moved (301 + redirectUrl), unknown (404), unknown tag
 * (404 listing the tags), not yet finalized (202), failed (422 or 500).
 */
import { LecternError } from '../errors.js'
import { formatLibraryId, parseLibraryId, type LibraryRef } from '../library-id.js'
import type { LibrariesRepository, Library, LibraryVersion } from '../store/libraries.js'

export interface ResolvedLibrary {
  ref: LibraryRef
  library: Library
  version: LibraryVersion
}

const withoutV = (tag: string) => tag.replace(/^v(?=\d)/i, '')

/** Finds a library by ID, following redirects as a 301 error. */
export function findLibrary(libraries: LibrariesRepository, rawId: string): { ref: LibraryRef; library: Library } {
  const ref = parseLibraryId(rawId)
  const library = libraries.byId(ref.id)
  if (library) return { ref, library }
  const moved = libraries.redirectOf(ref.id)
  if (moved) {
    const redirectUrl = formatLibraryId({ id: moved, version: ref.version })
    throw new LecternError('library_redirected', `Library ${ref.id} has moved to ${moved}.`, { redirectUrl })
  }
  throw new LecternError('library_not_found', `Library ${ref.id} not found. Search for it with /api/v2/libs/search.`)
}

export function findVersion(libraries: LibrariesRepository, library: Library, tag: string | undefined): LibraryVersion {
  const versions = libraries.versions(library.pk)
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

/** A version that can serve snippets: it has a live set, even while a refresh rebuilds it. */
export function requireServable(library: Library, version: LibraryVersion): number {
  if (version.currentSet !== null) return version.currentSet
  const name = version.tag ? `${library.id}@${version.tag}` : library.id
  if (version.state === 'initial' || version.state === 'processing') {
    throw new LecternError('library_not_finalized', `Library ${name} is still being processed; retry in a little while.`)
  }
  if (version.errorCode === 'no_code_found' || version.errorCode === 'library_too_large') {
    throw new LecternError(version.errorCode, version.errorMessage ?? `Library ${name} cannot be served.`)
  }
  // The stored reason is raw (git's stderr, an exception message) and may name server paths or
  // hosts; the client gets its category, the server log and the CLI the full text.
  throw new LecternError('internal_error', `Processing library ${name} failed (${version.errorCode ?? 'internal_error'}); the server log has the reason.`)
}

export function resolveLibraryVersion(libraries: LibrariesRepository, rawId: string): ResolvedLibrary & { setPk: number } {
  const { ref, library } = findLibrary(libraries, rawId)
  const version = findVersion(libraries, library, ref.version)
  return { ref, library, version, setPk: requireServable(library, version) }
}
