/**
 * The `ingest-git` job: clone (shallow, real git), find the docs, read context7.json, build and
 * finalize a snippet set for one library version. The clone lives under `repos/` only while the
 * job runs (the worker removes it however the job ends); the token reaches git through the
 * environment and is never written to disk. In cloud mode every git command checks the remote
 * against the private-address guard again, since DNS may answer differently than at submission.
 */
import fs from 'node:fs/promises'
import { z } from 'zod'
import type { EmbedderPool } from '../embed/pool.js'
import { LecternError } from '../errors.js'
import { jobWorkDir } from '../paths.js'
import type { AddressGuard } from '../sources/address-guard.js'
import { parseRepoUrl, type RepoKind } from '../sources/repo-url.js'
import { discoverDocs, readRepoConfig, type DiscoveredFile, type RepoConfig } from '../sources/discover.js'
import { discoverSourceFiles } from '../sources/discover-source.js'
import { cloneRepo, lsRemoteHead } from '../sources/git.js'
import { requireRemoteTag } from '../sources/git-tags.js'
import { siteContext } from '../sources/site-layout.js'
import { generateSourceSnippets } from '../parse/source-code/index.js'
import type { SourceDocument } from '../parse/types.js'
import type { Store } from '../store/index.js'
import type { Library } from '../store/libraries.js'
import type { NewSnippet } from '../store/snippets.js'
import { ingestSnippets } from '../index/build.js'
import { snippetsOf, toNewSnippet, type SourceLocator } from './ingest.js'
import { queueDeclaredVersions } from './library-jobs.js'
import type { JobContext, JobHandler } from './worker.js'

export const GIT_JOB = 'ingest-git'

export const gitJobPayload = z.object({
  repoUrl: z.string(),
  repoKind: z.enum(['github', 'gitlab', 'bitbucket', 'git']),
  /** Branch or tag to clone; the remote default branch when absent. */
  ref: z.string().optional(),
  skipVersionFiltering: z.boolean().optional(),
  /** Re-ingest even when the remote commit is the one already indexed. */
  force: z.boolean().optional(),
})

export type GitJobPayload = z.infer<typeof gitJobPayload>

const DESCRIPTION_CHARS = 300

/** A one-line description from the README's first prose, when context7.json gives none. */
function describe(documents: SourceDocument[]): string | undefined {
  const readme = documents.find((d) => /^readme\.(md|mdx|markdown|rst|txt)$/i.test(d.path))
  if (!readme) return undefined
  const paragraph = readme.text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .find((p) => p.length > 30 && !/^(#|!\[|\[!\[|<|```|=|-{3,}|\.\.)/.test(p))
  if (!paragraph) return undefined
  const flat = paragraph.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_`]/g, '').replace(/\s+/g, ' ')
  return flat.length > DESCRIPTION_CHARS ? `${flat.slice(0, DESCRIPTION_CHARS - 3).trimEnd()}...` : flat
}

/**
 * The token to clone with: the one submitted with the job, else the stored git connection for
 * the repository's host (`lectern connections add git`), so private repositories of a known
 * host need no token on every add.
 */
export function gitToken(store: Store, sealed: string | null, host: string): string | undefined {
  if (sealed) return store.secrets.open(sealed)
  const connection = store.connections.forGitHost(host)
  return connection ? store.connections.token(connection.name) : undefined
}

async function readDocuments(files: Array<{ path: string; absPath: string }>): Promise<SourceDocument[]> {
  return Promise.all(files.map(async (f) => ({ path: f.path, text: await fs.readFile(f.absPath, 'utf8') })))
}

export function createGitJobHandler(store: Store, embedders: EmbedderPool, guard: AddressGuard | undefined): JobHandler {
  return async (ctx: JobContext) => {
    const payload = gitJobPayload.parse(ctx.job.payload)
    const library = ctx.job.libraryPk === null ? undefined : store.libraries.byPk(ctx.job.libraryPk)
    const version = ctx.job.versionPk === null ? undefined : store.libraries.versionByPk(ctx.job.versionPk)
    if (!library || !version) throw new LecternError('library_not_found', 'The library of this job was removed.')
    const repo = parseRepoUrl(payload.repoUrl, payload.repoKind as RepoKind, { httpOnly: guard !== undefined })
    const token = gitToken(store, ctx.job.secret, repo.host)
    if (version.tag !== '') {
      // A version is a tag: one the remote lacks fails as tag_not_found, naming the tags there are.
      ctx.progress(`checking that tag ${version.tag} exists`)
      await requireRemoteTag({ cloneUrl: repo.cloneUrl, tag: version.tag, token, libraryId: library.id, signal: ctx.signal, guard })
    }
    if (!payload.force && version.currentSet !== null && version.commitSha) {
      ctx.progress(`checking ${repo.cloneUrl} for new commits`)
      const head = await lsRemoteHead(repo.cloneUrl, payload.ref, token, undefined, { signal: ctx.signal, guard })
      if (head === version.commitSha) return `unchanged at ${head.slice(0, 12)}; the live snippets stay`
    }
    // The worker removes the work directory before and after the job, however it ends.
    const workDir = jobWorkDir(store.paths, ctx.job.pk)
    await fs.mkdir(store.paths.repos, { recursive: true })
    ctx.progress(`cloning ${repo.cloneUrl}`)
    const clone = await cloneRepo({ cloneUrl: repo.cloneUrl, destDir: workDir, ref: payload.ref, token, signal: ctx.signal, guard })
    const log = (message: string) => ctx.log.info({ jobId: ctx.job.pk, libraryId: library.id }, message)
    const config = { ...(await readRepoConfig(workDir, log)), skipVersionFiltering: payload.skipVersionFiltering ?? false }
    const generateDocs = library.options.generateDocs === true
    ctx.progress('finding documentation files')
    const files = await findDocs(workDir, config, log, generateDocs)
    const documents = await readDocuments(files)
    ctx.progress(`parsing ${documents.length} files`)
    const locate: SourceLocator = (file, anchor) => {
      const web = repo.webFileUrl(clone.commit, file, anchor || undefined)
      return web ?? `${file}${anchor ? `#${anchor}` : ''}`
    }
    let snippets = snippetsOf(documents, locate, siteContext(workDir, log))
    if (generateDocs) {
      ctx.progress('generating documentation from the source code')
      snippets = dedupe([...snippets, ...(await sourceSnippets(workDir, config, log, locate))])
      if (snippets.length === 0) throw new LecternError('no_code_found', 'No documentation files and no documentable source code found.')
    }
    const result = await ingestSnippets(
      { store, embedder: embedders.current(), signal: ctx.signal, progress: ctx.progress },
      { versionPk: version.pk, commitSha: clone.commit },
      snippets,
    )
    if (version.tag === '') {
      updateLibraryMetadata(store, library, { config, documents, branch: clone.branch })
      const queued = queueDeclaredVersions(store, library, config.previousVersions)
      if (queued.length > 0) ctx.log.info({ jobId: ctx.job.pk, versions: queued.length }, 'queued the previous versions context7.json declares')
    }
    return `${result.snippets} snippets from ${documents.length} files at ${clone.commit.slice(0, 12)}`
  }
}

/**
 * The documentation files; with `generateDocs` a repository may have none, since the source code
 * is documented instead.
 */
async function findDocs(repoDir: string, config: RepoConfig, log: (msg: string) => void, generateDocs: boolean): Promise<DiscoveredFile[]> {
  try {
    return await discoverDocs(repoDir, config, log)
  } catch (err) {
    if (generateDocs && err instanceof LecternError && err.code === 'no_code_found') return []
    throw err
  }
}

/** One snippet per exported API symbol of the repository's source files. */
async function sourceSnippets(repoDir: string, config: RepoConfig, log: (msg: string) => void, locate: SourceLocator): Promise<NewSnippet[]> {
  const files = await readDocuments(await discoverSourceFiles(repoDir, config, log))
  const generated = await generateSourceSnippets(files, log)
  return generated.map(({ path: file, snippet }) => toNewSnippet(snippet, locate(file, snippet.anchor)))
}

/** The first of identical snippets, as `snippetsOf` keeps them: written docs win over generated ones. */
function dedupe(snippets: NewSnippet[]): NewSnippet[] {
  const byHash = new Map<string, NewSnippet>()
  for (const snippet of snippets) if (!byHash.has(snippet.hash)) byHash.set(snippet.hash, snippet)
  return [...byHash.values()]
}

function updateLibraryMetadata(
  store: Store,
  library: Library,
  found: { config: Awaited<ReturnType<typeof readRepoConfig>>; documents: SourceDocument[]; branch: string },
): void {
  store.libraries.update(library.pk, {
    title: found.config.projectTitle ?? library.title,
    description: found.config.description ?? describe(found.documents) ?? library.description,
    branch: found.branch,
    rules: found.config.rules,
  })
}
