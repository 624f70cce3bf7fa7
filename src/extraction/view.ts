/**
 * A library version's extraction report as `lectern inspect` and `GET
 * /api/libraries/:owner/:name/extraction` show it: read from the store, validated, and named by
 * its library ID. Admins only (the route and the local CLI); the report names pages and paths of
 * the source.
 */
import type { Caller } from '../library/access.js'
import { LecternError } from '../errors.js'
import { formatLibraryId } from '../library/id.js'
import { findLibrary, findVersion } from '../search/resolve.js'
import type { Store } from '../store/index.js'
import type { LibraryState } from '../store/libraries.js'
import { ExtractionReportSchema, type ExtractionReport } from './report.js'

export interface ExtractionView {
  /** The library ID, pinned to the version when it is not the default one. */
  libraryId: string
  /** When the ingest that wrote the report finished, and its job. */
  createdAt: string | null
  jobId: number | null
  /** The version's state, and the reason of its failure: why a version has no report yet. */
  state: LibraryState
  errorCode: string | null
  /** null when no ingest has written one: none has read its pages yet, the version was imported, or last ingested before reports existed. */
  report: ExtractionReport | null
}

/** The report of a library ID's version: the one it is pinned to (`/acme/widgets@v2`), else `tag`, else the default branch. */
export async function extractionOf(store: Store, libraryId: string, caller: Caller, tag = ''): Promise<ExtractionView> {
  const { library, ref } = await findLibrary(store.libraries, libraryId, caller)
  if (ref.version !== undefined && tag !== '' && ref.version !== tag) throw new LecternError('validation_error', `${libraryId} is pinned to ${ref.version}, and the version asked for is ${tag}: name one.`)
  // As every other path finds a version: `v2` finds `2`, and a miss lists the versions there are.
  const version = await findVersion(store.libraries, library, (ref.version ?? tag) || undefined)
  const shown = formatLibraryId({ id: library.id, version: version.tag || undefined })
  const about = { libraryId: shown, state: version.state, errorCode: version.errorCode }
  const stored = await store.extractionReports.get(version.pk)
  if (!stored) return { ...about, createdAt: null, jobId: null, report: null }
  const parsed = ExtractionReportSchema.safeParse(parseJson(stored.json))
  // A report the schema rejects was written by another build; saying "none" beats showing a wrong one.
  return { ...about, createdAt: stored.createdAt, jobId: stored.jobPk, report: parsed.success ? parsed.data : null }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
