/**
 * The `ingest-source` job: run the reader of the library's source spec (OpenAPI, llms.txt,
 * website, Confluence, Notion), turn what it returns into snippets and finalize a new set.
 * A fetch the reader reports unchanged (same ETag, Last-Modified or content hash) keeps the
 * live set and does no work, unless the job was forced.
 */
import { z } from 'zod'
import type { EmbedderPool } from '../embed/pool.js'
import { LecternError } from '../errors.js'
import type { HttpClient } from '../sources/http.js'
import { SOURCE_READERS } from '../sources/registry.js'
import type { Store } from '../store/index.js'
import type { NewSnippet } from '../store/snippets.js'
import { ingestSnippets } from '../index/build.js'
import { snippetsOf, toNewSnippet } from './ingest.js'
import type { JobContext, JobHandler } from './worker.js'

export const SOURCE_JOB = 'ingest-source'

export const sourceJobPayload = z.object({
  spec: z.object({ type: z.string() }).passthrough(),
  force: z.boolean().optional(),
})

export type SourceJobPayload = z.infer<typeof sourceJobPayload>

export function createSourceJobHandler(store: Store, embedders: EmbedderPool, http: HttpClient, chromiumPath: string): JobHandler {
  return async (ctx: JobContext) => {
    const { spec, force } = sourceJobPayload.parse(ctx.job.payload)
    const library = ctx.job.libraryPk === null ? undefined : store.libraries.byPk(ctx.job.libraryPk)
    const version = ctx.job.versionPk === null ? undefined : store.libraries.versionByPk(ctx.job.versionPk)
    if (!library || !version) throw new LecternError('library_not_found', 'The library of this job was removed.')
    const reader = SOURCE_READERS[spec.type]
    if (!reader) throw new LecternError('validation_error', `Unknown source type "${spec.type}".`)
    const previousRevision = version.currentSet !== null && !force ? version.commitSha : null
    const fetched = await reader(spec, {
      http,
      store,
      chromiumPath,
      signal: ctx.signal,
      progress: ctx.progress,
      log: (message) => ctx.log.info({ jobId: ctx.job.pk, libraryId: library.id }, message),
      previousRevision,
    })
    if (previousRevision !== null && (fetched.unchanged || (fetched.revision != null && fetched.revision === previousRevision))) {
      return `unchanged since the last fetch (${previousRevision}); the live snippets stay`
    }
    ctx.progress(`parsing ${fetched.documents.length} documents`)
    const byHash = new Map<string, NewSnippet>()
    const built = (fetched.built ?? []).map(({ path, snippet }) => toNewSnippet(snippet, fetched.locate(path, snippet.anchor)))
    for (const snippet of [...built, ...snippetsOf(fetched.documents, fetched.locate)]) {
      if (!byHash.has(snippet.hash)) byHash.set(snippet.hash, snippet)
    }
    const result = await ingestSnippets(
      { store, embedder: embedders.current(), signal: ctx.signal, progress: ctx.progress },
      { versionPk: version.pk, commitSha: fetched.revision ?? null },
      [...byHash.values()],
    )
    if (version.tag === '') {
      store.libraries.update(library.pk, {
        title: fetched.title ?? library.title,
        description: fetched.description ?? library.description,
      })
    }
    return `${result.snippets} snippets from ${fetched.documents.length + (fetched.built?.length ?? 0)} documents`
  }
}
