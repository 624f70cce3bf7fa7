/**
 * Library lifecycle operations behind the `libraries` and `versions` commands and the dashboard
 * API: rename (leaving a redirect so every request naming the old ID gets 301 with the new one),
 * and removing a library or one of its versions (rows, FTS tables, vector files and an uploaded
 * spec: nothing left behind). A process that caches loaded sets passes `forget` to drop the removed ones at once;
 * other processes drop them when they see the catalogue change.
 */
import type { Caller } from './access.js'
import { LecternError } from '../errors.js'
import { formatLibraryId, parseLibraryId } from './id.js'
import { removeSetFiles } from '../index/set-files.js'
import { findLibrary, findVersion } from '../search/resolve.js'
import { removeUpload } from '../sources/uploads.js'
import type { Store } from '../store/index.js'
import type { Library } from '../store/libraries.js'

/** The ID of a library as given, refusing one pinned to a version. */
export function unpinned(raw: string, what: string): string {
  const ref = parseLibraryId(raw)
  if (ref.version) throw new LecternError('validation_error', `${what} must be a library ID without a version, not ${raw}.`)
  return ref.id
}

export async function renameLibrary(store: Store, fromRaw: string, toRaw: string): Promise<Library> {
  const fromId = unpinned(fromRaw, 'The old ID')
  const toId = unpinned(toRaw, 'The new ID')
  return await store.libraries.rename(fromId, toId)
}

/** Called with each removed snippet set once its files are gone. */
export type ForgetSet = (setPk: number) => void

/**
 * Deletes rows and the snippet sets they own: `deleteRows` deletes (the sets' rows go by
 * cascade) and returns the set pks; their FTS tables are dropped in the same transaction, and
 * their files removed once it committed. The one way Lectern deletes live sets.
 */
async function removeWithSets(store: Store, deleteRows: () => Promise<number[]>, forget: ForgetSet | undefined): Promise<number[]> {
  const sets = await store.transaction(async () => {
    const setPks = await deleteRows()
    for (const pk of setPks) await store.snippets.dropLegacyFts(pk)
    return setPks
  })
  for (const pk of sets) {
    removeSetFiles(store.paths, pk)
    forget?.(pk)
  }
  return sets
}

export interface RemovedLibrary {
  id: string
  sets: number
}

/**
 * Removes a library with all its versions and sets, and its uploaded file. A library whose job
 * is running is refused (the job would write into rows that are gone), while queued jobs go with
 * it; the check and the delete share one transaction, so a worker cannot claim a job in between.
 */
export async function removeLibrary(store: Store, raw: string, caller: Caller, forget?: ForgetSet): Promise<RemovedLibrary> {
  const { library } = await findLibrary(store.libraries, unpinned(raw, 'The ID'), caller)
  const sets = await removeWithSets(
    store,
    async () => {
      const running = await store.jobs.runningForLibrary(library.pk)
      if (running) {
        throw new LecternError('library_busy', `Library ${library.id} is being processed (job ${running.pk}); remove it once the job has ended.`)
      }
      return store.libraries.remove(library.pk)
    },
    forget,
  )
  await removeUploadOf(store, library)
  return { id: library.id, sets: sets.length }
}

export interface RemovedVersion {
  /** The pinned ID of the removed version, e.g. /acme/widgets@v1.0.0. */
  id: string
  tag: string
  sets: number
}

/**
 * Removes one version of a library with its sets. The default version is the library itself
 * (removed with `removeLibrary`); a version whose job is running is refused, while a queued job
 * of it goes with it. The check and the delete share one transaction, so a worker cannot claim
 * the job in between.
 */
export async function removeVersion(store: Store, rawId: string, tag: string, caller: Caller, forget?: ForgetSet): Promise<RemovedVersion> {
  const { library } = await findLibrary(store.libraries, unpinned(rawId, 'The ID'), caller)
  const namesDefault = tag.trim() === '' || (tag === library.branch && !(await store.libraries.version(library.pk, tag)))
  const version = namesDefault ? undefined : await findVersion(store.libraries, library, tag)
  if (!version || version.tag === '') {
    throw new LecternError('validation_error', `The default branch of ${library.id} is the library itself; remove it with \`lectern libraries remove ${library.id}\`.`)
  }
  const id = formatLibraryId({ id: library.id, version: version.tag })
  const sets = await removeWithSets(store, async () => {
    const active = await store.jobs.activeForVersion(version.pk)
    if (active?.state === 'running') {
      throw new LecternError('library_busy', `Version ${id} is being processed (job ${active.pk}); remove it once the job has ended.`)
    }
    return store.libraries.removeVersion(version.pk)
  }, forget)
  return { id, tag: version.tag, sets: sets.length }
}

/** Deletes a removed library's uploaded file (named by its spec, so a renamed library's too). */
async function removeUploadOf(store: Store, library: Pick<Library, 'options'>): Promise<void> {
  const spec = library.options.spec as { type?: unknown; file?: unknown } | undefined
  if (spec?.type === 'openapi' && typeof spec.file === 'string') await removeUpload(store, spec.file)
}
