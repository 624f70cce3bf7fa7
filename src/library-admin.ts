/**
 * Library lifecycle operations behind the `libraries` commands: rename (leaving a redirect so
 * every request naming the old ID gets 301 with the new one) and remove (rows, FTS tables and
 * vector files, nothing left behind).
 */
import { LecternError } from './errors.js'
import { parseLibraryId } from './library-id.js'
import { vectorIndexPath } from './paths.js'
import { findLibrary } from './search/resolve.js'
import { removeVectorIndex } from './search/vector-index.js'
import type { Store } from './store/index.js'
import type { Library } from './store/libraries.js'
import { ftsTable } from './store/snippets.js'

function unpinned(raw: string, what: string): string {
  const ref = parseLibraryId(raw)
  if (ref.version) throw new LecternError('validation_error', `${what} must be a library ID without a version, not ${raw}.`)
  return ref.id
}

export function renameLibrary(store: Store, fromRaw: string, toRaw: string): Library {
  const fromId = unpinned(fromRaw, 'The old ID')
  const toId = unpinned(toRaw, 'The new ID')
  return store.libraries.rename(fromId, toId)
}

export interface RemovedLibrary {
  id: string
  sets: number
}

export function removeLibrary(store: Store, raw: string): RemovedLibrary {
  const { library } = findLibrary(store.libraries, unpinned(raw, 'The ID'))
  const sets = store.db.transaction(() => {
    const setPks = store.libraries.remove(library.pk)
    for (const pk of setPks) store.db.exec(`DROP TABLE IF EXISTS ${ftsTable(pk)}`)
    return setPks
  })()
  for (const pk of sets) removeVectorIndex(vectorIndexPath(store.paths, pk))
  return { id: library.id, sets: sets.length }
}
