/**
 * The git source reader: clone the repository (shallow, real git; behind the address guard in
 * cloud mode, which every git command checks again since DNS may answer differently than at
 * submission), read context7.json, find the docs and, with `generateDocs`, document the source
 * code. A version that is a tag must exist at the remote (`tag_not_found` otherwise), and a
 * refresh whose remote commit is the one already indexed stops before cloning.
 *
 * The clone is the job's work directory, removed by the worker however the job ends; the token
 * reaches git through the environment and is never written to disk.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { LecternError } from '../errors.js'
import { generateSourceSnippets, type GeneratedSnippet } from '../parse/source-code/index.js'
import type { SourceDocument } from '../parse/types.js'
import { discoverDocs, readRepoConfig, type DiscoveredFile, type RepoConfig } from './discover.js'
import { discoverSourceFiles } from './discover-source.js'
import { cloneRepo, lsRemoteHead } from './git.js'
import { requireRemoteTag } from './git-tags.js'
import { gitSsh, gitToken, refuseCleartextToken } from './git-token.js'
import { GIT_SOURCE_KINDS, parseRepoUrl } from './repo-url.js'
import { siteLayout } from './site-layout.js'
import { siteMetadata } from './site-metadata.js'
import type { FetchedSource, SourceReader, SourceSpec } from './types.js'

export const gitSpec = z.object({
  type: z.literal('git'),
  /** The clone URL (never with credentials). */
  url: z.string(),
  sourceKind: z.enum(GIT_SOURCE_KINDS),
  /** Branch or tag to clone; the remote default branch when absent. */
  ref: z.string().optional(),
  skipVersionFiltering: z.boolean().default(false),
  generateDocs: z.boolean().default(false),
  /** Set by whoever added the library (a GitOps manifest): they replace the repository's context7.json lists. */
  folders: z.array(z.string()).optional(),
  excludeFolders: z.array(z.string()).optional(),
  excludeFiles: z.array(z.string()).optional(),
})

export type GitSpec = z.input<typeof gitSpec>

const DESCRIPTION_CHARS = 300

export const readGitRepository: SourceReader<SourceSpec> = async (raw, ctx): Promise<FetchedSource> => {
  const spec = gitSpec.parse(raw)
  const repo = parseRepoUrl(spec.url, spec.sourceKind, { httpOnly: ctx.guard !== undefined })
  const token = await gitToken(ctx.store, ctx.submittedToken, repo.host, ctx.connections)
  // Also here, for the jobs no request checked (refresh --all) and connections added since.
  refuseCleartextToken(repo.cloneUrl, token, ctx.guard)
  const remote = { signal: ctx.signal, guard: ctx.guard, ssh: await gitSsh(ctx.store, repo.cloneUrl, repo.host, ctx.connections) }
  if (ctx.tag !== '') {
    // A version is a tag: one the remote lacks fails as tag_not_found, naming the tags there are.
    ctx.progress(`checking that tag ${ctx.tag} exists`)
    await requireRemoteTag({ cloneUrl: repo.cloneUrl, tag: ctx.tag, token, libraryId: ctx.libraryId, ...remote })
  }
  if (ctx.previousRevision !== null) {
    ctx.progress(`checking ${repo.cloneUrl} for new commits`)
    const head = await lsRemoteHead(repo.cloneUrl, spec.ref, token, undefined, remote)
    if (head === ctx.previousRevision) return { documents: [], locate: (file) => file, revision: head, unchanged: true }
  }
  await fs.mkdir(ctx.store.paths.repos, { recursive: true })
  ctx.progress(`cloning ${repo.cloneUrl}`)
  const clone = await cloneRepo({ cloneUrl: repo.cloneUrl, destDir: ctx.workDir, ref: spec.ref, token, ...remote })
  const { folders, excludeFolders, excludeFiles } = spec
  const config = { ...(await readRepoConfig(ctx.workDir, ctx.log)), skipVersionFiltering: spec.skipVersionFiltering, ...definedOnly({ folders, excludeFolders, excludeFiles }) }
  const site = siteMetadata(ctx.workDir)
  ctx.progress('finding documentation files')
  const documents = await findDocs(ctx.workDir, config, ctx.log, spec.generateDocs)
  let generated: GeneratedSnippet[] | undefined
  if (spec.generateDocs) {
    ctx.progress('generating documentation from the source code')
    generated = await generateSourceSnippets(await discoverSourceFiles(ctx.workDir, config, ctx.log), ctx.log, (path, text) => ctx.parse('source', { path, text }))
    if (documents.length === 0 && generated.length === 0) {
      throw new LecternError('no_code_found', 'No documentation files and no documentable source code found.')
    }
  }
  return {
    documents,
    site: siteLayout(ctx.workDir),
    generated,
    locate: (file, anchor) => repo.webFileUrl(clone.commit, file, anchor || undefined) ?? `${file}${anchor ? `#${anchor}` : ''}`,
    title: config.projectTitle ?? site.title,
    description: config.description ?? site.description ?? describe(documents),
    branch: clone.branch,
    rules: config.rules,
    declaredVersions: config.previousVersions,
    revision: clone.commit,
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

/** Pages that introduce a library: the README, the docs' front page. */
const FRONT_PAGE = /(^|\/)(readme|index|intro|introduction|overview)\.(md|mdx|markdown|rst|txt)$/i

/**
 * A one-line description from the first prose of the README, else of the docs' front page
 * nearest the root, when neither context7.json nor the site's config gives one.
 */
function describe(documents: SourceDocument[]): string | undefined {
  const depth = (file: string) => file.split('/').length + (/^readme\./i.test(path.posix.basename(file)) ? 0 : 0.5)
  const front = documents.filter((d) => FRONT_PAGE.test(d.path)).sort((a, b) => depth(a.path) - depth(b.path))[0]
  if (!front) return undefined
  const paragraph = front.text
    .replace(/^(---|\+\+\+)\n[\s\S]*?\n\1\n/, '')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .find((p) => p.length > 30 && !/^(#|!\[|\[!\[|<|```|=|-{3,}|\.\.)/.test(p))
  if (!paragraph) return undefined
  const flat = paragraph.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_`]/g, '').replace(/\s+/g, ' ')
  return flat.length > DESCRIPTION_CHARS ? `${flat.slice(0, DESCRIPTION_CHARS - 3).trimEnd()}...` : flat
}

/** The lists that were given: an absent one leaves context7.json's. */
const definedOnly = <T extends Record<string, unknown>>(values: T): Partial<T> => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>
