/**
 * Submitting a library: validate the source, create the library (state `initial`) and queue
 * its first job, all before answering; the work itself happens in the worker.
 *
 * A library whose ingest failed and that serves nothing is no obstacle: submitting it again
 * retries it, with the new submission's source and options, and answers as a fresh add.
 */
import { LecternError } from '../errors.js'
import type { AddressGuard } from '../sources/address-guard.js'
import { admitGitRemote } from '../sources/git-guard.js'
import { gitSsh, gitToken, refuseCleartextToken } from '../sources/git-token.js'
import { isSafeRefName, parseRepoUrl, type GitSourceKind } from '../sources/repo-url.js'
import type { SourceSubmission } from '../sources/types.js'
import { INSTALL_CONNECTIONS } from '../store/connections.js'
import type { Store } from '../store/index.js'
import type { Job } from '../store/jobs.js'
import type { Library, LibraryVersion, NewLibrary } from '../store/libraries.js'
import { placeSubmission, type Submitter, type TeamOwner } from '../tenancy/private-sources.js'
import { submitterConnectionScope } from '../tenancy/stored-connections.js'
import { FOLDER_OPTIONS, gitSpecOf, queueIngest } from './queue-ingest.js'

export interface RepositorySubmission {
  /** Inferred from the URL when absent (github.com, gitlab.com, bitbucket.org, else git). */
  sourceKind?: GitSourceKind
  docsRepoUrl: string
  gitToken?: string
  private?: boolean
  skipVersionFiltering?: boolean
  generateDocs?: boolean
  /** The branch to index, where the URL names none (`/tree/<branch>`). */
  branch?: string
  /** In place of the repository's context7.json lists (a GitOps manifest's entry). */
  folders?: string[]
  excludeFolders?: string[]
  excludeFiles?: string[]
}

export interface Submitted {
  libraryId: string
  message: string
  job: Job
}

/** The default version of a library whose ingest failed and that serves nothing, else undefined. */
export async function failedVersionOf(store: Store, library: Library): Promise<LibraryVersion | undefined> {
  const version = await store.libraries.version(library.pk, '')
  return version?.state === 'error' && version.currentSet === null ? version : undefined
}

/** The refusal of an ID that is taken: within a teamspace, its private repository is already there. */
const taken = (owner: TeamOwner | undefined, message: string): LecternError =>
  new LecternError(owner ? 'duplicate_repo' : 'library_exists', message)

/**
 * The library a submission goes to: a new one, or a failed one taken over for a retry (its
 * source, options and visibility replaced, its state back to `initial`). Inside a transaction.
 */
async function createOrRetry(store: Store, input: NewLibrary, refusal: LecternError): Promise<{ library: Library; version: LibraryVersion }> {
  const existing = await store.libraries.byId(input.id)
  if (!existing) {
    // The same source added again after its library was renamed would index it twice.
    const moved = await store.libraries.redirectOf(input.id)
    const renamed = moved === undefined ? undefined : await store.libraries.byId(moved)
    if (renamed && renamed.sourceUrl === input.sourceUrl) {
      throw new LecternError('library_exists', `${input.sourceUrl} is already indexed as ${renamed.id} (renamed from ${input.id}); refresh that library instead.`)
    }
    return await store.libraries.create(input)
  }
  const failed = await failedVersionOf(store, existing)
  if (!failed || existing.sourceKind !== input.sourceKind) throw refusal
  const active = await store.jobs.activeForVersion(failed.pk)
  if (active) throw new LecternError('library_busy', `Library ${input.id} is being processed (job ${active.pk}); wait for it to end.`)
  const library = await store.libraries.update(existing.pk, {
    title: input.title,
    description: input.description ?? existing.description,
    sourceUrl: input.sourceUrl,
    branch: input.branch ?? null,
    isPrivate: input.isPrivate ?? false,
    options: input.options ?? {},
  })
  await store.libraries.setVersionState(failed.pk, 'initial')
  return { library, version: (await store.libraries.version(existing.pk, ''))! }
}

/**
 * In cloud mode (`guard`) the remote must be http(s) and not resolve to a private address, and a
 * repository read with credentials (a `gitToken`, or the stored git connection of its host among
 * the caller's: the operator's for the operator, its teamspace's for a tenant) is private by
 * nature: submitted with a teamspace's key, it belongs to that teamspace.
 */
export async function submitRepository(store: Store, input: RepositorySubmission, guard: AddressGuard | undefined, submitter?: Submitter): Promise<Submitted> {
  const parsed = parseRepoUrl(input.docsRepoUrl, input.sourceKind, { httpOnly: guard !== undefined })
  if (input.branch !== undefined && input.branch !== '' && !isSafeRefName(input.branch)) throw new LecternError('validation_error', `"${input.branch}" is not a valid branch name.`)
  const repo = input.branch ? { ...parsed, branch: input.branch } : parsed
  const token = input.gitToken?.trim() ? input.gitToken.trim() : undefined
  const scope = submitter ? submitterConnectionScope(submitter) : INSTALL_CONNECTIONS
  refuseCleartextToken(repo.cloneUrl, await gitToken(store, token, repo.host, scope), guard)
  // An SSH repository is read only through the install's SSH connection for its host: refused now without one.
  await gitSsh(store, repo.cloneUrl, repo.host, scope)
  const withCredentials = token !== undefined || (scope !== undefined && await store.connections.forGitHost(scope, repo.host) !== undefined)
  const isPrivate = input.private === true || (submitter?.mode === 'cloud' && withCredentials)
  const { id, owner } = await placeSubmission(store.teams, submitter, repo.libraryId, isPrivate, 'repository')
  const note = await admitGitRemote(repo.cloneUrl, guard)
  const job = await store.transaction(async () => {
    const newLibrary: NewLibrary = {
      id,
      title: repo.repo,
      sourceKind: repo.sourceKind,
      sourceUrl: repo.cloneUrl,
      branch: repo.branch ?? null,
      isPrivate,
      teamPk: owner?.teamPk ?? null,
      options: {
        skipVersionFiltering: input.skipVersionFiltering ?? false,
        generateDocs: input.generateDocs ?? false,
        ...(repo.branch ? { ref: repo.branch } : {}),
        ...Object.fromEntries(FOLDER_OPTIONS.filter((name) => input[name] !== undefined).map((name) => [name, input[name]])),
      },
    }
    const { library, version } = await createOrRetry(store, newLibrary, taken(owner, `Library ${id} was already added. Refresh it to pick up new commits.`))
    return await queueIngest(store, version, gitSpecOf(library, repo.branch), { token })
  })
  return {
    libraryId: id,
    message: [`Library ${id} submitted for processing (job ${job.pk}).`, note].filter(Boolean).join(' '),
    job,
  }
}

/** `owner`: the teamspace a private source belongs to, its ID already placed (placeSubmission). */
export async function submitSource(store: Store, input: SourceSubmission, owner?: TeamOwner): Promise<Submitted> {
  const job = await store.transaction(async () => {
    const existing = await store.libraries.byId(input.libraryId)
    if (existing && existing.sourceKind !== input.sourceKind) {
      throw new LecternError('library_exists', `Library ${input.libraryId} already exists with another source (${existing.sourceKind}).`)
    }
    // With force, a healthy library is re-ingested in place; a failed one is retried like any re-add.
    const forced = existing && input.force && !await failedVersionOf(store, existing) ? existing : undefined
    const target = forced
      ? { library: forced, version: (await store.libraries.version(forced.pk, ''))! }
      : await createOrRetry(
          store,
          {
            id: input.libraryId,
            title: input.title,
            description: input.description,
            sourceKind: input.sourceKind,
            sourceUrl: input.sourceUrl,
            isPrivate: input.isPrivate ?? false,
            teamPk: owner?.teamPk ?? null,
            options: { spec: input.spec },
          },
          taken(owner, `Library ${input.libraryId} was already added. Refresh it, or submit it again with force.`),
        )
    if (forced) await store.libraries.update(forced.pk, { options: { ...forced.options, spec: input.spec } })
    const active = await store.jobs.activeForVersion(target.version.pk)
    if (active) throw new LecternError('library_busy', `Library ${input.libraryId} is being processed (job ${active.pk}); wait for it to end.`)
    return await queueIngest(store, target.version, input.spec, { force: input.force })
  })
  return { libraryId: input.libraryId, message: `Library ${input.libraryId} submitted for processing (job ${job.pk}).`, job }
}
