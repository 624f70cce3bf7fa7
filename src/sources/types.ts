/**
 * The contract between the `ingest-source` job and a source reader (OpenAPI, llms.txt, website,
 * Confluence, Notion). A reader fetches and returns documents to parse and/or snippets it built
 * itself; the job does the rest (tokens, de-duplication, embedding, the atomic swap).
 */
import type { ParsedSnippet, SourceDocument } from '../parse/types.js'
import type { Store } from '../store/index.js'
import type { HttpClient } from './http.js'

export interface SourceContext {
  http: HttpClient
  store: Store
  signal: AbortSignal
  progress(message: string): void
  log(message: string): void
  /** The browser for pages that need JavaScript (setting chromium.path). */
  chromiumPath: string
  /** The library's previous fetch marker (ETag, Last-Modified, content hash), for refresh. */
  previousRevision: string | null
}

export interface FetchedSource {
  /** Markdown, rST, notebooks...: parsed with parseDocument. Paths are what `locate` receives. */
  documents: SourceDocument[]
  /** Snippets a reader builds itself (e.g. one per OpenAPI operation), with the path `locate` receives. */
  built?: Array<{ path: string; snippet: ParsedSnippet }>
  /** Where a snippet came from: usually the page URL plus the heading anchor. */
  locate(path: string, anchor: string): string
  title?: string
  description?: string
  /** A marker of this fetch (ETag, Last-Modified or content hash); equal to previousRevision means unchanged. */
  revision?: string | null
  /** True when the reader learned from the server that nothing changed since previousRevision. */
  unchanged?: boolean
}

export type SourceReader<Spec> = (spec: Spec, ctx: SourceContext) => Promise<FetchedSource>
