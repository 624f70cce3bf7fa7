/**
 * Jobs on an existing library: ingesting a git tag as its own version, refreshing a library or
 * a version from its source, and refreshing every library older than an age (for cron).
 * A library version has at most one queued or running job at a time.
 */
import { isInsider, LOCAL, type Caller } from '../library/access.js'
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'
import { formatLibraryId, isValidVersion, parseLibraryId } from '../library/id.js'
import { findLibrary, findVersion } from '../search/resolve.js'
import type { AddressGuard } from '../sources/address-guard.js'
import { admitGitRemote } from '../sources/git-guard.js'
import { requireRemoteTag } from '../sources/git-tags.js'
import { gitSsh, gitToken, refuseCleartextToken } from '../sources/git-token.js'
import { GIT_SOURCE_KINDS, isSafeRefName, parseRepoUrl, type GitSourceKind } from '../sources/repo-url.js'
import type { SourceSpec } from '../sources/types.js'
import type { Store } from '../store/index.js'
import type { Job } from '../store/jobs.js'
import type { Library, LibraryVersion } from '../store/libraries.js'
import { can } from '../tenancy/roles.js'
import { libraryConnectionScope } from '../tenancy/stored-connections.js'
import { gitSpecOf, queueIngest } from './queue-ingest.js'

export const isGitLibrary = (library: Library): boolean => (GIT_SOURCE_KINDS as readonly string[]).includes(library.sourceKind)

function busy(library: Library, version: LibraryVersion, active: Job): LecternError {
  const name = formatLibraryId({ id: library.id, version: version.tag || undefined })
  return new LecternError('library_busy', `Library ${name} is being processed (job ${active.pk}, ${active.state}); wait for it to end.`)
}

async function refuseIfBusy(store: Store, library: Library, version: LibraryVersion): Promise<void> {
  const active = await store.jobs.activeForVersion(version.pk)
  if (active) throw busy(library, version, active)
}

/**
 * Why a refresh of the version would be refused before its source is contacted, given its
 * queued or running job; undefined when it would be queued. The dashboard shows the reason on a
 * disabled refresh button, so it is the very refusal a refresh answers.
 */
export function refreshRefusal(library: Library, version: LibraryVersion, active: Job | undefined): LecternError | undefined {
  if (library.isImported) return new LecternError('forbidden', 'Imported libraries cannot be refreshed; export again and import with force.')
  if (active) return busy(library, version, active)
  if (!isGitLibrary(library) && !library.options.spec) return new LecternError('validation_error', `Library ${library.id} has no source to refresh from.`)
  return undefined
}

/**
 * How often a caller who may not change what a library serves (a teamspace's key or member, on a
 * shared library or as a developer) may have it re-ingested: each refresh costs the install a
 * clone and a parse that every other teamspace waits behind.
 */
export const SHARED_REFRESH_INTERVAL_MS = 10 * 60_000

/**
 * Whether the caller may change what the library serves (refresh another branch, force a rebuild
 * of an unchanged source): the operator, and anyone on-premise; in cloud mode also the owners and
 * admins of the teamspace the library belongs to.
 */
async function mayReconfigure(store: Store, caller: Caller, library: Library): Promise<boolean> {
  if (isInsider(caller)) return true
  if (library.teamPk === null || caller.kind === 'anonymous' || caller.kind === 'local') return false
  const userId = caller.userId
  const member = caller.kind === 'api-key' ? caller.teamId === library.teamPk : caller.teamIds.includes(library.teamPk)
  const role = member && userId !== null ? await store.teams.roleOf(library.teamPk, userId) : undefined
  return role !== undefined && can(role, 'managePrivateSources')
}

/**
 * A refresh by a caller who may not reconfigure the library: only as it is configured (no other
 * branch, no force), and at most once per SHARED_REFRESH_INTERVAL_MS per version.
 */
async function refuseReconfiguring(store: Store, request: RefreshRequest, library: Library, version: LibraryVersion, name: string, now: number): Promise<void> {
  const otherBranch = request.branch !== undefined && request.branch !== library.branch
  if (otherBranch || request.force) {
    const who = library.teamPk === null ? 'the operator' : "the operator and the teamspace's owners and admins"
    throw new LecternError('forbidden', `Only ${who} may ${otherBranch ? 'change the branch' : 'force a rebuild'} of ${name}; refresh it without "branch" and "force" to re-ingest it as it is configured.`)
  }
  const last = await store.jobs.latestForVersion(version.pk)
  const waitMs = last === undefined ? 0 : Date.parse(last.createdAt) + SHARED_REFRESH_INTERVAL_MS - now
  if (waitMs > 0) {
    const retryAfter = Math.ceil(waitMs / 1000)
    throw new LecternError('rate_limit_exceeded', `${name} was refreshed less than ${SHARED_REFRESH_INTERVAL_MS / 60_000} minutes ago; retry in ${retryAfter} s.`, { retryAfter })
  }
}

export interface QueuedJob {
  libraryId: string
  message: string
  job: Job
}

/**
 * Ingests a git tag of a git library as its own version, served at /owner/repo/<tag>. The tag is
 * looked up at the remote first (`git ls-remote`, behind the address guard in cloud mode): an
 * unknown one creates nothing and queues nothing.
 */
export async function addVersion(
  store: Store,
  rawId: string,
  tag: string,
  title: string | undefined,
  caller: Caller,
  guard: AddressGuard | undefined,
  mode: Mode,
): Promise<QueuedJob> {
  const { library } = await findLibrary(store.libraries, parseLibraryId(rawId).id, caller)
  // An imported library came as snippets, without its repository: there is no tag to read here.
  if (library.isImported) throw new LecternError('forbidden', `${library.id} was imported: it has no source on this install to add a version from. A version comes across the air gap as the library did: exported from the cloud (a version pin exports that version) and imported.`)
  if (!isGitLibrary(library)) {
    throw new LecternError('validation_error', `Versions come from git tags; ${library.id} is a ${library.sourceKind} library.`)
  }
  if (!isValidVersion(tag) || !isSafeRefName(tag)) throw new LecternError('validation_error', `"${tag}" is not a valid version tag.`)
  const repo = parseRepoUrl(library.sourceUrl, library.sourceKind as GitSourceKind, { httpOnly: guard !== undefined })
  const scope = libraryConnectionScope(library, mode)
  const token = await gitToken(store, undefined, repo.host, scope)
  refuseCleartextToken(repo.cloneUrl, token, guard)
  await requireRemoteTag({ cloneUrl: repo.cloneUrl, tag, token, libraryId: library.id, guard, ssh: await gitSsh(store, repo.cloneUrl, repo.host, scope) })
  const version = await store.libraries.ensureVersion(library.pk, tag, title)
  await refuseIfBusy(store, library, version)
  const job = await queueIngest(store, version, gitSpecOf(library, tag))
  const id = formatLibraryId({ id: library.id, version: tag })
  return { libraryId: id, message: `Version ${id} queued (job ${job.pk}).`, job }
}

/** Queues the previousVersions a repository's context7.json names and the library lacks. */
export async function queueDeclaredVersions(store: Store, library: Library, versions: Array<{ tag: string; title: string }>): Promise<Job[]> {
  const queued: Job[] = []
  for (const { tag, title } of versions) {
    if (!isValidVersion(tag) || !isSafeRefName(tag)) continue
    const existing = await store.libraries.version(library.pk, tag)
    if (existing && (existing.currentSet !== null || await store.jobs.activeForVersion(existing.pk))) continue
    queued.push(await queueIngest(store, existing ?? await store.libraries.ensureVersion(library.pk, tag, title), gitSpecOf(library, tag)))
  }
  return queued
}

export interface RefreshRequest {
  /** Library ID, optionally pinned to a version. */
  libraryId: string
  branch?: string
  gitToken?: string
  /** Re-ingest even when the source has not changed. */
  force?: boolean
}

/** In cloud mode (`guard`) a git library's remote must still be http(s) and not resolve to a private address. */
export async function refreshLibrary(store: Store, request: RefreshRequest, caller: Caller, guard: AddressGuard | undefined, now = Date.now()): Promise<QueuedJob> {
  const { ref, library } = await findLibrary(store.libraries, request.libraryId, caller)
  const version = await findVersion(store.libraries, library, ref.version)
  const refusal = refreshRefusal(library, version, await store.jobs.activeForVersion(version.pk))
  if (refusal) throw refusal
  const name = formatLibraryId({ id: library.id, version: version.tag || undefined })
  if (!await mayReconfigure(store, caller, library)) await refuseReconfiguring(store, request, library, version, name, now)
  let job: Job
  let note: string | undefined
  if (isGitLibrary(library)) {
    if (request.branch !== undefined && !isSafeRefName(request.branch)) {
      throw new LecternError('validation_error', `"${request.branch}" is not a valid branch name.`)
    }
    const repo = parseRepoUrl(library.sourceUrl, library.sourceKind as GitSourceKind, { httpOnly: guard !== undefined })
    // The guard is cloud mode's: there a library reads through its own teamspace's connections only.
    const scope = libraryConnectionScope(library, guard === undefined ? 'onprem' : 'cloud')
    refuseCleartextToken(repo.cloneUrl, await gitToken(store, request.gitToken?.trim() || undefined, repo.host, scope), guard)
    // An SSH repository without its connection (removed since) fails now, not in the job.
    await gitSsh(store, repo.cloneUrl, repo.host, scope)
    note = await admitGitRemote(repo.cloneUrl, guard)
    // Again: another job may have been queued while the host was resolved.
    await refuseIfBusy(store, library, version)
    const refName = version.tag || request.branch || (typeof library.options.ref === 'string' ? library.options.ref : undefined)
    job = await queueIngest(store, version, gitSpecOf(library, refName), { token: request.gitToken?.trim() || undefined, force: request.force })
  } else {
    job = await queueIngest(store, version, library.options.spec as SourceSpec, { force: request.force })
  }
  return { libraryId: name, message: [`Refresh of ${name} queued (job ${job.pk}).`, note].filter(Boolean).join(' '), job }
}

/** Refreshes every library whose default version was last updated before `olderThanMs` ago. */
export async function refreshStale(
  store: Store,
  olderThanMs: number,
  guard: AddressGuard | undefined,
  now = Date.now(),
): Promise<{ queued: QueuedJob[]; skipped: Array<{ libraryId: string; reason: string }> }> {
  const queued: QueuedJob[] = []
  const skipped: Array<{ libraryId: string; reason: string }> = []
  for (const library of await store.libraries.list()) {
    const main = await store.libraries.version(library.pk, '')
    if (!main || now - Date.parse(main.updatedAt) < olderThanMs) continue
    try {
      queued.push(await refreshLibrary(store, { libraryId: library.id }, LOCAL, guard))
    } catch (err) {
      skipped.push({ libraryId: library.id, reason: err instanceof Error ? err.message : String(err) })
    }
  }
  return { queued, skipped }
}

/** Parses "7d", "12h", "30m" into milliseconds. */
export function parseAge(text: string): number {
  const match = /^(\d+)\s*([dhm])$/.exec(text.trim())
  if (!match) throw new LecternError('validation_error', `"${text}" is not an age; use a number and d, h or m, e.g. 7d.`)
  return Number(match[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[match[2] as 'd' | 'h' | 'm']
}
