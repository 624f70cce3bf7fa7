/**
 * Submitting a library: validate the source, create the library (state `initial`) and queue
 * its first job, all before answering; the work itself happens in the worker.
 */
import { LecternError } from '../errors.js'
import { parseRepoUrl, type RepoKind } from '../sources/repo-url.js'
import type { Store } from '../store/index.js'
import type { Job } from '../store/jobs.js'
import { GIT_JOB, type GitJobPayload } from './git-job.js'
import { SOURCE_JOB, type SourceJobPayload } from './source-job.js'

export interface RepositorySubmission {
  kind?: RepoKind
  docsRepoUrl: string
  gitToken?: string
  private?: boolean
  skipVersionFiltering?: boolean
  generateDocs?: boolean
}

export interface Submitted {
  libraryName: string
  message: string
  job: Job
}

export function submitRepository(store: Store, input: RepositorySubmission): Submitted {
  const repo = parseRepoUrl(input.docsRepoUrl, input.kind)
  const existing = store.libraries.byId(repo.libraryId)
  if (existing) {
    throw new LecternError(
      'library_exists',
      `Library ${repo.libraryId} was already added. Refresh it to pick up new commits.`,
    )
  }
  const token = input.gitToken?.trim() ? input.gitToken.trim() : undefined
  const submit = store.db.transaction(() => {
    const { library, version } = store.libraries.create({
      id: repo.libraryId,
      title: repo.repo,
      sourceType: repo.kind,
      sourceUrl: repo.cloneUrl,
      branch: repo.branch ?? null,
      isPrivate: input.private ?? false,
      options: {
        skipVersionFiltering: input.skipVersionFiltering ?? false,
        generateDocs: input.generateDocs ?? false,
        ...(repo.branch ? { ref: repo.branch } : {}),
      },
    })
    const payload: GitJobPayload = {
      repoUrl: repo.cloneUrl,
      repoKind: repo.kind,
      ...(repo.branch ? { ref: repo.branch } : {}),
      skipVersionFiltering: input.skipVersionFiltering ?? false,
    }
    return store.jobs.enqueue({
      kind: GIT_JOB,
      libraryPk: library.pk,
      versionPk: version.pk,
      payload,
      secret: token ? store.secrets.seal(token) : null,
    })
  })
  const job = submit()
  return {
    libraryName: repo.libraryId,
    message: `Library ${repo.libraryId} submitted for processing (job ${job.pk}).`,
    job,
  }
}

export interface SourceSubmission {
  libraryId: string
  title: string
  description?: string
  /** Short name of the source kind: openapi, llmstxt, website, confluence, notion. */
  sourceType: string
  /** Where the docs come from, shown to users (a URL, or a site and space). */
  sourceUrl: string
  /** The reader's spec; kept on the library so refresh can run it again. */
  spec: { type: string } & Record<string, unknown>
  isPrivate?: boolean
  /** Re-ingest an existing library of the same source instead of refusing with 409. */
  force?: boolean
}

export function submitSource(store: Store, input: SourceSubmission): Submitted {
  const submit = store.db.transaction(() => {
    const existing = store.libraries.byId(input.libraryId)
    if (existing && !input.force) {
      throw new LecternError('library_exists', `Library ${input.libraryId} was already added. Refresh it, or submit it again with force.`)
    }
    if (existing && existing.sourceType !== input.sourceType) {
      throw new LecternError('library_exists', `Library ${input.libraryId} already exists with another source (${existing.sourceType}).`)
    }
    const target = existing
      ? { library: existing, version: store.libraries.version(existing.pk, '')! }
      : store.libraries.create({
          id: input.libraryId,
          title: input.title,
          description: input.description,
          sourceType: input.sourceType,
          sourceUrl: input.sourceUrl,
          isPrivate: input.isPrivate ?? false,
          options: { spec: input.spec },
        })
    if (existing) store.libraries.update(existing.pk, { options: { ...existing.options, spec: input.spec } })
    const active = store.jobs.activeForVersion(target.version.pk)
    if (active) throw new LecternError('library_busy', `Library ${input.libraryId} is being processed (job ${active.pk}); wait for it to end.`)
    return store.jobs.enqueue({
      kind: SOURCE_JOB,
      libraryPk: target.library.pk,
      versionPk: target.version.pk,
      payload: { spec: input.spec, force: input.force ?? false } satisfies SourceJobPayload,
    })
  })
  const job = submit()
  return { libraryName: input.libraryId, message: `Library ${input.libraryId} submitted for processing (job ${job.pk}).`, job }
}
