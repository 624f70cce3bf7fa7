/**
 * The contract between the ingest job and a source reader (git, OpenAPI, llms.txt, website,
 * Confluence, Notion). A reader fetches and returns documents to parse and/or snippets it built
 * itself; the job does the rest (tokens, de-duplication, embedding, the atomic swap).
 */
import type { Parse, ParsedSnippet, SiteLayout, SourceDocument } from '../parse/types.js'
import type { ConnectionScope } from '../store/connections.js'
import type { Store } from '../store/index.js'
import type { AddressGuard } from './address-guard.js'
import type { HttpClient } from './http.js'

/** A reader's input: `type` names the reader (registry.ts), the rest is the reader's own (zod-checked). */
export type SourceSpec = { type: string } & Record<string, unknown>

export interface SourceContext {
  http: HttpClient
  store: Store
  signal: AbortSignal
  progress(message: string): void
  log(message: string): void
  /** The browser for pages that need JavaScript (setting chromium.path). */
  chromiumPath: string
  /** The library's previous fetch marker (commit, ETag, Last-Modified, content hash), for refresh. */
  previousRevision: string | null
  /** The library being read, for messages. */
  libraryId: string
  /** The version being read: a git tag, or '' for the default version. */
  tag: string
  /** A scratch directory of this job (a clone); the worker removes it before and after the job. */
  workDir: string
  /** A token submitted with the job (kept sealed in the job's row until it runs). */
  submittedToken?: string
  /** The stored connections the library reads through, undefined for none (tenancy/stored-connections.ts). */
  connections?: ConnectionScope
  /** Cloud mode: the private-address guard, for readers that reach the network without `http` (git). */
  guard?: AddressGuard
  /** Parses under the job's parse budget (jobs/parse-thread.ts): web pages, source files, specs. */
  parse: Parse
}

export interface FetchedSource {
  /** Markdown, rST, notebooks...: parsed with parseDocument. Paths are what `locate` receives. */
  documents: SourceDocument[]
  /** How the documents resolve includes and site-absolute links (a repository checkout). */
  site?: SiteLayout
  /** Snippets a reader builds itself (e.g. one per OpenAPI operation), with the path `locate` receives. */
  built?: Array<{ path: string; snippet: ParsedSnippet }>
  /** Snippets generated from source code (`generateDocs`); an identical snippet of the documents wins over them. */
  generated?: Array<{ path: string; snippet: ParsedSnippet }>
  /** Where a snippet came from: usually the page URL plus the heading anchor. */
  locate(path: string, anchor: string): string
  title?: string
  description?: string
  /** The branch the docs were read from (git), shown on the library. */
  branch?: string
  /** Rules for using the library that the source declares (context7.json). */
  rules?: string[]
  /** Versions the source declares (context7.json previousVersions); the job queues those the library lacks. */
  declaredVersions?: Array<{ tag: string; title: string }>
  /** A marker of this fetch (commit, ETag, Last-Modified or content hash); equal to previousRevision means unchanged. */
  revision?: string | null
  /** True when the reader learned from the server that nothing changed since previousRevision. */
  unchanged?: boolean
}

export type SourceReader<Spec> = (spec: Spec, ctx: SourceContext) => Promise<FetchedSource>

/** A library to create (or re-ingest) from a source; what each reader's `...Submission` helper returns. */
export interface SourceSubmission {
  libraryId: string
  title: string
  description?: string
  /** The library's source kind: openapi, llmstxt, website, confluence, notion. */
  sourceKind: string
  /** Where the docs come from, shown to users (a URL, or a site and space). */
  sourceUrl: string
  /** The reader's spec; kept on the library so refresh can run it again. */
  spec: SourceSpec
  isPrivate?: boolean
  /** Re-ingest an existing library of the same source instead of refusing with 409. */
  force?: boolean
}
