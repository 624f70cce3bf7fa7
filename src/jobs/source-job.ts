/**
 * The ingest job, one for every source: run the reader of the job's source spec (git, OpenAPI,
 * llms.txt, website, Confluence, Notion; sources/registry.ts), turn what it returns into
 * snippets and finalize a new set. A fetch the reader reports unchanged (the same commit, ETag,
 * Last-Modified or content hash) keeps the live set and does no work, unless the job was forced.
 */
import type { Mode } from '../config.js'
import type { EmbedderPool } from '../embed/pool.js'
import { LecternError } from '../errors.js'
import { ParseFailure } from '../parse/failure.js'
import { ExtractionTally, warningSummary } from '../extraction/report.js'
import { formatLibraryId } from '../library/id.js'
import type { IncludeOutcome, Parse, ParseTaskName, ParseTasks, SourceDocument } from '../parse/types.js'
import { jobWorkDir } from '../install/paths.js'
import type { AddressGuard } from '../sources/address-guard.js'
import type { HttpClient } from '../sources/http.js'
import { loadSourceReader } from '../sources/registry.js'
import type { FetchedSource } from '../sources/types.js'
import type { Store } from '../store/index.js'
import type { LibraryVersion } from '../store/libraries.js'
import type { NewSnippet } from '../store/snippets.js'
import { libraryConnectionScope } from '../tenancy/stored-connections.js'
import { ingestSnippets } from '../index/build.js'
import { DocumentSnippets, toNewSnippet } from './ingest.js'
import { ingestJobPayload } from './kinds.js'
import { queueDeclaredVersions } from './library-jobs.js'
import type { ParseThread } from './parse-thread.js'
import type { JobContext, JobHandler } from './worker.js'
import { counted } from '../text/counted.js'

export interface IngestServices {
  store: Store
  embedders: EmbedderPool
  http: HttpClient
  /** Where documents are parsed, under the parse budget. */
  parser: ParseThread
  /** The browser for pages that need JavaScript (setting chromium.path). */
  chromiumPath: string
  /** Cloud mode: the private-address guard. */
  guard?: AddressGuard
  mode: Mode
}

/** A git commit is shown by its first 12 hex digits, as git's short form; other markers in full. */
const shortRevision = (revision: string) => (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(revision) ? revision.slice(0, 12) : revision)

export function createIngestJobHandler(services: IngestServices): JobHandler {
  const { store, embedders } = services
  return async (ctx: JobContext) => {
    const { spec, force } = ingestJobPayload.parse(ctx.job.payload)
    const library = ctx.job.libraryPk === null ? undefined : await store.libraries.byPk(ctx.job.libraryPk)
    const version = ctx.job.versionPk === null ? undefined : await store.libraries.versionByPk(ctx.job.versionPk)
    if (!library || !version) throw new LecternError('library_not_found', 'The library of this job was removed.')
    const reader = await loadSourceReader(spec.type)
    if (!reader) throw new LecternError('validation_error', `Unknown source type "${spec.type}".`)
    const previousRevision = version.currentSet !== null && !force ? version.commitSha : null
    const tally = new ExtractionTally()
    const parsing = new JobParsing(services.parser.forJob(ctx.signal), tally)
    const fetched = await reader(spec, {
      http: services.http,
      store,
      chromiumPath: services.chromiumPath,
      signal: ctx.signal,
      progress: ctx.progress,
      log: (message) => ctx.log.info({ jobId: ctx.job.pk, libraryId: library.id }, message),
      previousRevision,
      libraryId: library.id,
      tag: version.tag,
      workDir: jobWorkDir(store.paths, ctx.job.pk),
      submittedToken: ctx.job.secret ? store.secrets.open(ctx.job.secret) : undefined,
      connections: libraryConnectionScope(library, services.mode),
      guard: services.guard,
      parse: parsing.parse,
    })
    if (previousRevision !== null && (fetched.unchanged || (fetched.revision != null && fetched.revision === previousRevision))) {
      return `unchanged at ${shortRevision(previousRevision)}; the live snippets stay`
    }
    ctx.progress(`parsing ${counted(fetched.documents.length, 'document')}`)
    const { snippets, duplicatesDropped } = await snippetsFrom(fetched, parsing, tally, ctx)
    const libraryId = formatLibraryId({ id: library.id, version: version.tag || undefined })
    if (snippets.length === 0) throw await noSnippets(store, ctx.job.pk, version, tally, libraryId)
    const result = await ingestSnippets(
      { store, embedder: await embedders.current(), signal: ctx.signal, progress: ctx.progress, log: ctx.log, pace: ctx.pace, fence: ctx.fence },
      { versionPk: version.pk, commitSha: fetched.revision ?? null },
      snippets,
    )
    const report = tally.report(result.snippets, duplicatesDropped)
    await store.extractionReports.put(version.pk, ctx.job.pk, JSON.stringify(report))
    if (version.tag === '') {
      await store.libraries.update(library.pk, {
        title: fetched.title ?? library.title,
        description: fetched.description ?? library.description,
        ...(fetched.branch !== undefined ? { branch: fetched.branch } : {}),
        ...(fetched.rules !== undefined ? { rules: fetched.rules } : {}),
      })
      const queued = await queueDeclaredVersions(store, library, fetched.declaredVersions ?? [])
      if (queued.length > 0) ctx.log.info({ jobId: ctx.job.pk, versions: queued.length }, 'queued the previous versions context7.json declares')
    }
    const documents = fetched.documents.length + (fetched.built?.length ?? 0)
    const at = fetched.revision ? ` at ${shortRevision(fetched.revision)}` : ''
    const message = `${counted(result.snippets, 'snippet')} from ${counted(documents, 'document')}${at}`
    const warnings = tally.skippedContent
    if (warnings === 0) return message
    return { message: `${message}; with warnings: ${warningSummary(report).join(', ')} (lectern inspect ${libraryId})`, warnings }
  }
}

/**
 * The failure of an ingest that parsed its documents and kept no snippet. A version that serves
 * no snippets keeps this ingest's report, which says what each page gave; one that serves a set
 * keeps the report of the ingest that built it, since that is what its answers come from.
 */
async function noSnippets(store: Store, jobPk: number, version: LibraryVersion, tally: ExtractionTally, libraryId: string): Promise<LecternError> {
  const report = tally.report(0, 0)
  const found = 'No documentation or code snippets were found in the source'
  if (report.pages === 0) return new LecternError('no_code_found', `${found}.`)
  const stubs = report.pages - report.pagesSkipped.count - report.pagesWithoutSnippets.count
  const read = `${found} (${counted(report.pages, 'page')} read: ${report.pagesSkipped.count} could not be parsed, ${report.pagesWithoutSnippets.count} with text but no snippet, ${stubs} without a paragraph of prose or a code block)`
  if (version.currentSet !== null) return new LecternError('no_code_found', `${read}; the live snippets stay.`)
  await store.extractionReports.put(version.pk, jobPk, JSON.stringify(report))
  return new LecternError('no_code_found', `${read}; \`lectern inspect ${libraryId}\` shows what each gave.`)
}

/**
 * Documents over the parse budget in one job before the job fails: a library whose pages keep
 * running out of time is hostile or broken, and each costs the queue a whole budget.
 */
export const MAX_OVER_BUDGET = 5

/** The parsing of one job: counts what could not be parsed, and ends the job after MAX_OVER_BUDGET. */
class JobParsing {
  private overBudget = 0

  constructor(
    private readonly run: Parse,
    private readonly tally: ExtractionTally,
  ) {}

  readonly parse: Parse = async (task, input) => {
    try {
      return await this.run(task, input)
    } catch (err) {
      if (!(err instanceof ParseFailure)) throw err
      // Every document a parse failed on is skipped content, whether a page of the repository, a web page or a source file.
      this.tally.skippedDocument(documentName(task, input), `it ${err.reason}`)
      if (err.overBudget && ++this.overBudget >= MAX_OVER_BUDGET) {
        throw new LecternError('timeout', `${MAX_OVER_BUDGET} documents went over the parse budget (the last one ${err.reason}); the library's previous snippets stay. Raise parse.budgetSeconds if its documents are really this heavy.`)
      }
      throw err
    }
  }
}

/** What the report calls the document a parse task read. */
function documentName<K extends ParseTaskName>(task: K, input: ParseTasks[K][0]): string {
  const fields = input as { doc?: { path: string }; url?: string; path?: string; origin?: string }
  return fields.doc?.path ?? fields.url ?? fields.path ?? fields.origin ?? `a ${task} document`
}

/**
 * The snippets of a fetch, each content once: a reader's own snippets first, then the documents'
 * (parseDocument, pacing between documents), then those generated from source code, the first of
 * identical ones kept.
 */
async function snippetsFrom(
  fetched: FetchedSource,
  parsing: JobParsing,
  tally: ExtractionTally,
  ctx: Pick<JobContext, 'pace' | 'signal' | 'log'>,
): Promise<{ snippets: NewSnippet[]; duplicatesDropped: number }> {
  const located = (items: FetchedSource['built']) => (items ?? []).map(({ path, snippet }) => toNewSnippet(snippet, fetched.locate(path, snippet.anchor)))
  const documents = new DocumentSnippets(fetched.locate)
  const docs = fetched.documents
  let parsed = 0
  let unresolvedLogged = 0
  const parse = (doc: SourceDocument) => settled(parsing.parse('document', { doc, ...(fetched.site ? { site: fetched.site } : {}) }))
  // Documents asked for ahead: the parse thread reads the next ones while this thread shapes, counts and hashes this one's snippets.
  const ahead = docs.slice(0, PARSE_AHEAD).map(parse)
  for (let i = 0; i < docs.length; i++) {
    ctx.signal.throwIfAborted()
    const outcome = await ahead.shift()!
    if (i + PARSE_AHEAD < docs.length) ahead.push(parse(docs[i + PARSE_AHEAD]))
    const doc = docs[i]
    if (outcome.ok) {
      const { snippets, report } = outcome.value
      unresolvedLogged = logUnresolved(report.includes, unresolvedLogged, ctx.log)
      tally.document(doc.path, report)
      parsed += snippets.length
      documents.add(doc, snippets)
    } else if (outcome.error instanceof ParseFailure) {
      ctx.log.warn({ page: doc.path, reason: outcome.error.reason }, `skipped ${doc.path}: it ${outcome.error.reason}`)
    } else {
      throw outcome.error
    }
    await ctx.pace()
  }
  const byHash = new Map<string, NewSnippet>()
  const all = [...located(fetched.built), ...documents.snippets(), ...located(fetched.generated)]
  for (const snippet of all) {
    if (!byHash.has(snippet.hash)) byHash.set(snippet.hash, snippet)
  }
  const total = parsed + (fetched.built?.length ?? 0) + (fetched.generated?.length ?? 0)
  return { snippets: [...byHash.values()], duplicatesDropped: total - byHash.size }
}

/**
 * Logs a document's unresolved include directives at warn level, one line each while fewer than
 * LOGGED_INCLUDES were logged, then once that the report has the rest. Returns the new count.
 */
function logUnresolved(includes: readonly IncludeOutcome[], logged: number, log: JobContext['log']): number {
  for (const outcome of includes) {
    if (outcome.problem === undefined) continue
    if (logged < LOGGED_INCLUDES) {
      const tried = outcome.tried?.length ? ` (tried ${outcome.tried.join(', ')})` : ''
      log.warn({ page: outcome.page, line: outcome.line }, `include "${outcome.reference}" at ${outcome.page}:${outcome.line} read no file: ${outcome.problem}${tried}`)
    } else if (logged === LOGGED_INCLUDES) {
      log.warn({}, 'more includes read no file; the extraction report lists them all (lectern inspect)')
    }
    logged++
  }
  return logged
}

/** Unresolved includes a job logs one by one; the report lists the rest. */
const LOGGED_INCLUDES = 20

/** Documents asked of the parse thread ahead of the one whose snippets are being gathered. */
const PARSE_AHEAD = 4

/** A promise's outcome as a value: a parse asked ahead never rejects unawaited when the job ends first. */
async function settled<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise }
  } catch (error) {
    return { ok: false, error }
  }
}
