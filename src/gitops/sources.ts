/**
 * What a manifest entry asks for, in Lectern's terms: the library it makes and how to submit it,
 * through the same submissions `lectern add` uses (src/jobs/submit.ts), so an entry is indexed
 * exactly as the same source added by hand would be.
 */
import { LecternError } from '../errors.js'
import { refreshLibrary } from '../jobs/library-jobs.js'
import { submitRepository, submitSource, type Submitted } from '../jobs/submit.js'
import { LOCAL } from '../library/access.js'
import { openApiUrlLibraryId, submitOpenApiUrl } from '../jobs/submit-openapi.js'
import { confluenceConnectionForSite, confluenceSubmission } from '../sources/confluence.js'
import { llmstxtSubmission } from '../sources/llmstxt.js'
import { parseRepoUrl } from '../sources/repo-url.js'
import type { SourceSubmission } from '../sources/types.js'
import { websiteSubmission } from '../sources/website.js'
import { INSTALL_CONNECTIONS } from '../store/connections.js'
import type { Store } from '../store/index.js'
import type { ManifestEntry } from './manifest.js'

export interface DesiredSource {
  entry: ManifestEntry
  libraryId: string
  /** Submits it: a new library, or (`force`) the existing one re-indexed with the entry's settings. */
  submit(force: boolean): Promise<Submitted>
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)
const strings = (value: unknown): string[] | undefined => (Array.isArray(value) ? (value as string[]) : undefined)

/** The library an entry makes; a source that cannot be submitted (a bad URL, no Confluence connection) fails here. */
export async function desiredSource(store: Store, entry: ManifestEntry): Promise<DesiredSource> {
  const { fields } = entry
  const titled = (submission: SourceSubmission): SourceSubmission => ({
    ...submission,
    ...(str(fields.title) ? { title: str(fields.title)! } : {}),
    ...(str(fields.description) ? { description: str(fields.description) } : {}),
  })
  const withSpec = (submission: SourceSubmission, extra: Record<string, unknown>): SourceSubmission => ({ ...submission, spec: { ...submission.spec, ...extra } })
  const sourceOf = (submission: SourceSubmission): DesiredSource => ({ entry, libraryId: submission.libraryId, submit: (force) => submitSource(store, { ...submission, force }) })
  const limits = (names: string[]) => Object.fromEntries(names.filter((name) => fields[name] !== undefined).map((name) => [name, fields[name]]))
  switch (entry.type) {
    case 'git': {
      const repo = parseRepoUrl(entry.url)
      const input = {
        docsRepoUrl: entry.url,
        // The entry's branch, else the one its URL names (`/tree/<branch>`), else the default branch.
        branch: str(fields.branch) ?? repo.branch,
        folders: strings(fields.folders),
        excludeFolders: strings(fields.excludeFolders),
        excludeFiles: strings(fields.excludeFiles),
        generateDocs: fields.indexSourceCode === true,
      }
      return { entry, libraryId: repo.libraryId, submit: (force) => (force ? resubmitRepository(store, repo.libraryId, input) : submitRepository(store, input, undefined)) }
    }
    case 'website':
      return sourceOf(titled(withSpec(websiteSubmission(entry.url), limits(['maxPages', 'maxDepth']))))
    case 'llmstxt':
      return sourceOf(titled(withSpec(llmstxtSubmission(entry.url), limits(['maxPages']))))
    case 'openapi': {
      const input = { url: entry.url, title: str(fields.title), description: str(fields.description) }
      return { entry, libraryId: openApiUrlLibraryId(entry.url), submit: (force) => submitOpenApiUrl(store, { ...input, force }) }
    }
    case 'confluence': {
      const connection = await confluenceConnectionForSite(store, INSTALL_CONNECTIONS, entry.url)
      if (!connection) {
        // Confluence Cloud's API tokens go with the account's email; a Data Center token alone.
        const email = new URL(entry.url).hostname.endsWith('.atlassian.net') ? ' --email <account email>' : ''
        throw new LecternError('validation_error', `No Confluence connection for ${entry.url}: add it with \`lectern connections add confluence --name <name> --site ${entry.url}${email} --token-stdin\`.`)
      }
      const title = str(fields.title) ?? str(fields.spaceName)
      return sourceOf(await confluenceSubmission(store, INSTALL_CONNECTIONS, { connection: connection.name, spaceKey: str(fields.spaceKey)!, title, description: str(fields.description) }))
    }
  }
}

/** A managed repository whose entry changed: its settings replaced, then re-indexed. */
async function resubmitRepository(store: Store, libraryId: string, input: Parameters<typeof submitRepository>[1]): Promise<Submitted> {
  const library = await store.libraries.byId(libraryId)
  if (!library) return await submitRepository(store, input, undefined)
  const options: Record<string, unknown> = { ...library.options, generateDocs: input.generateDocs ?? false }
  for (const name of ['folders', 'excludeFolders', 'excludeFiles'] as const) {
    if (input[name] === undefined) delete options[name]
    else options[name] = input[name]
  }
  if (input.branch) options.ref = input.branch
  else delete options.ref
  await store.libraries.update(library.pk, { branch: input.branch ?? null, options })
  const queued = await refreshLibrary(store, { libraryId, force: true }, LOCAL, undefined)
  return { libraryId, message: queued.message, job: queued.job }
}
