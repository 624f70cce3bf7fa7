/**
 * The export payload of one library (spec 4.1 export): its live snippets as an ImportLibrary,
 * only for public libraries that are finalized. Used by the cloud endpoint and `lectern export`.
 */
import type { Caller } from '../access.js'
import { LecternError } from '../errors.js'
import { findLibrary, findVersion } from '../search/resolve.js'
import type { Store } from '../store/index.js'
import { toImportLibrary, type ImportLibrary } from './payload.js'

export function exportLibrary(store: Store, rawId: string, caller: Caller): ImportLibrary {
  const { ref, library } = findLibrary(store.libraries, rawId, caller)
  if (library.isPrivate) throw new LecternError('forbidden', `Library ${library.id} is private; only public libraries can be exported.`)
  const version = findVersion(store.libraries, library, ref.version)
  if (version.currentSet === null) {
    throw new LecternError('library_not_finalized', `Library ${library.id} is still being processed; export it once it is finalized.`)
  }
  return toImportLibrary(library, store.snippets.allOfSet(version.currentSet), version.totalTokens)
}
