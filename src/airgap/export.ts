/**
 * The export payload of one library (spec 4.1 export): its live snippets as an ImportLibrary,
 * only for public libraries that are finalized. Used by the cloud endpoints, `lectern export`
 * and the cloud dashboard's export of several libraries.
 */
import { ANONYMOUS, type Caller } from '../library/access.js'
import { isLecternError, LecternError } from '../errors.js'
import type { LibraryCatalogue } from '../search/libraries.js'
import { findLibrary, findVersion } from '../search/resolve.js'
import type { Store } from '../store/index.js'
import { toImportLibrary, type ImportLibrary } from './payload.js'

export async function exportLibrary(store: Store, rawId: string, caller: Caller): Promise<ImportLibrary> {
  const { ref, library } = await findLibrary(store.libraries, rawId, caller)
  if (library.isPrivate) throw new LecternError('forbidden', `Library ${library.id} is private; only public libraries can be exported.`)
  const version = await findVersion(store.libraries, library, ref.version)
  if (version.currentSet === null) {
    throw new LecternError('library_not_finalized', `Library ${library.id} is still being processed; export it once it is finalized.`)
  }
  return toImportLibrary(library, await store.snippets.allOfSet(version.currentSet), version.totalTokens)
}

/**
 * The libraries of a dashboard export (POST /api/libraries/export), in the order named. A name
 * that is unknown, private or not ready is the request's mistake, so the answer is a 400 naming
 * it (not_finalized's own status is 202, which a download would take for the zip).
 */
const REFUSED = new Set(['library_not_found', 'forbidden', 'library_not_finalized'])

export async function exportLibraries(store: Store, ids: string[], caller: Caller): Promise<ImportLibrary[]> {
  const libraries: ImportLibrary[] = []
  for (const id of ids) {
    try {
      libraries.push(await exportLibrary(store, id, caller))
    } catch (err) {
      if (isLecternError(err) && REFUSED.has(err.code)) {
        throw new LecternError('validation_error', `${err.message} Nothing was exported.`)
      }
      throw err
    }
  }
  return libraries
}

/** What the export picker offers: public, finalized libraries whose ID or title contains `q`, by ID. */
export async function exportableLibraries(catalogue: LibraryCatalogue, q: string, limit: number): Promise<{ libraries: ExportableLibrary[]; total: number }> {
  const needle = q.trim().toLowerCase()
  const matching = (await catalogue
    .list({ caller: ANONYMOUS }))
    .filter((l) => l.state === 'finalized' && (l.id.toLowerCase().includes(needle) || l.title.toLowerCase().includes(needle)))
    .sort((a, b) => a.id.localeCompare(b.id))
  return {
    libraries: matching.slice(0, limit).map((l) => ({ id: l.id, title: l.title, totalSnippets: l.totalSnippets, lastUpdateDate: l.lastUpdateDate })),
    total: matching.length,
  }
}

export interface ExportableLibrary {
  id: string
  title: string
  totalSnippets: number
  lastUpdateDate: string
}
