/**
 * Submitting a library: validate the source, create the library (state `initial`) and queue
 * its first job, all before answering; the work itself happens in the worker.
 */
import { LecternError } from '../errors.js'
import { parseRepoUrl, type RepoKind } from '../sources/repo-url.js'
import type { Store } from '../store/index.js'
import type { Job } from '../store/jobs.js'
import { GIT_JOB, type GitJobPayload } from './git-job.js'

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
      options: { skipVersionFiltering: input.skipVersionFiltering ?? false, generateDocs: input.generateDocs ?? false },
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
