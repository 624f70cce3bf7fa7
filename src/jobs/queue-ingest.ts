/**
 * Queuing the ingest job of a library version, with the spec its source reader reads: every
 * add, refresh and version goes through here, so a job never runs without its spec.
 */
import type { GitSpec } from '../sources/git-reader.js'
import type { GitSourceKind } from '../sources/repo-url.js'
import type { SourceSpec } from '../sources/types.js'
import type { Store } from '../store/index.js'
import type { Job } from '../store/jobs.js'
import type { Library, LibraryVersion } from '../store/libraries.js'
import { INGEST_JOB, type IngestJobPayload } from './kinds.js'

/** Queues the ingest job of a library version; a token is sealed into the job's row until it ends. */
export async function queueIngest(store: Store, version: LibraryVersion, spec: SourceSpec, options: { token?: string; force?: boolean } = {}): Promise<Job> {
  return await store.jobs.enqueue({
    kind: INGEST_JOB,
    libraryPk: version.libraryPk,
    versionPk: version.pk,
    payload: { spec, force: options.force ?? false } satisfies IngestJobPayload,
    secret: options.token ? store.secrets.seal(options.token) : null,
  })
}

/** The git reader's spec for a git library at a ref, with the options it was added with. */
/** The folder lists a library may carry (src/sources/git-reader.ts), in place of its repository's context7.json. */
export const FOLDER_OPTIONS = ['folders', 'excludeFolders', 'excludeFiles'] as const

export function gitSpecOf(library: Library, ref: string | undefined): GitSpec {
  return {
    type: 'git',
    url: library.sourceUrl,
    sourceKind: library.sourceKind as GitSourceKind,
    ...(ref ? { ref } : {}),
    skipVersionFiltering: library.options.skipVersionFiltering === true,
    generateDocs: library.options.generateDocs === true,
    ...Object.fromEntries(FOLDER_OPTIONS.filter((name) => Array.isArray(library.options[name])).map((name) => [name, library.options[name] as string[]])),
  }
}
