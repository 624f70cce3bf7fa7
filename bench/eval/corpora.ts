/**
 * The evaluation corpora: real documentation shipped in the tarballs of npm packages installed
 * in this project (fastify, pino, undici). Each one becomes a small local git repository that
 * the product clones through git's own `url.<base>.insteadOf` rewrite, so the corpora reach
 * the index by exactly the path a user's GitHub repository takes.
 */
import fs from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { submitRepository } from '../../src/jobs/submit.js'
import type { Job } from '../../src/store/jobs.js'
import type { Runtime } from '../../src/runtime.js'

export interface Corpus {
  /** Repository name, and the `library` of the questions about it. */
  name: string
  /** The npm package whose tarball holds the docs. */
  packageName: string
  /** Folder of the package copied with its Markdown files, keeping package-relative paths. */
  docsDir: string
}

export const CORPORA: readonly Corpus[] = [
  { name: 'fastify', packageName: 'fastify', docsDir: 'docs' },
  { name: 'pino', packageName: 'pino', docsDir: 'docs' },
  { name: 'undici', packageName: 'undici', docsDir: 'docs' },
]

/** The fake GitHub owner the corpora are submitted under; git rewrites it to a local folder. */
export const EVAL_OWNER = 'eval'

export const libraryIdOf = (corpus: string) => `/${EVAL_OWNER}/${corpus}`

/** The nearest ancestor holding a package.json: the same root from `bench/` and `dist/bench/`. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error('no package.json above the eval sources')
    dir = parent
  }
  return dir
}

async function markdownFiles(dir: string, relative = ''): Promise<string[]> {
  const entries = await fs.readdir(path.join(dir, relative), { withFileTypes: true })
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const rel = path.posix.join(relative, entry.name)
      if (entry.isDirectory()) return markdownFiles(dir, rel)
      return entry.isFile() && entry.name.toLowerCase().endsWith('.md') ? [rel] : []
    }),
  )
  return nested.flat()
}

async function copyFile(from: string, to: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true })
  await fs.copyFile(from, to)
}

/** Copies the package README (as README.md) and its docs' Markdown into `repoDir`. */
async function copyDocs(corpus: Corpus, repoDir: string): Promise<void> {
  const pkgDir = path.join(projectRoot(), 'node_modules', corpus.packageName)
  const readme = (await fs.readdir(pkgDir)).find((f) => f.toLowerCase() === 'readme.md')
  if (readme) await copyFile(path.join(pkgDir, readme), path.join(repoDir, 'README.md'))
  const docsRoot = path.join(pkgDir, corpus.docsDir)
  const files = await markdownFiles(docsRoot)
  if (files.length === 0) throw new Error(`${corpus.packageName} ships no Markdown under ${corpus.docsDir}/; run npm install`)
  await Promise.all(files.map((f) => copyFile(path.join(docsRoot, f), path.join(repoDir, corpus.docsDir, f))))
}

async function git(cwd: string, args: string[]): Promise<void> {
  await execa('git', args, { cwd })
}

/** Builds `<reposRoot>/<name>` as a one-commit git repository of the corpus docs. */
export async function buildCorpusRepo(corpus: Corpus, reposRoot: string): Promise<string> {
  const repoDir = path.join(reposRoot, corpus.name)
  await fs.rm(repoDir, { recursive: true, force: true })
  await copyDocs(corpus, repoDir)
  await git(repoDir, ['init', '-q'])
  await git(repoDir, ['add', '-A'])
  await git(repoDir, ['-c', 'user.email=e@e', '-c', 'user.name=e', 'commit', '-q', '-m', `${corpus.name} docs`])
  return repoDir
}

/**
 * Points `https://github.com/eval/` at `reposRoot` for every git the product spawns, appending
 * to any GIT_CONFIG_* entries already set. Returns the function that puts process.env back.
 */
export function redirectGitHub(reposRoot: string): () => void {
  const saved = new Map<string, string | undefined>()
  const set = (name: string, value: string) => {
    saved.set(name, process.env[name])
    process.env[name] = value
  }
  const index = Number(process.env.GIT_CONFIG_COUNT ?? '0') || 0
  set(`GIT_CONFIG_KEY_${index}`, `url.file://${reposRoot}/.insteadOf`)
  set(`GIT_CONFIG_VALUE_${index}`, `https://github.com/${EVAL_OWNER}/`)
  set('GIT_CONFIG_COUNT', String(index + 1))
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

/** Submits each named repository (under EVAL_OWNER) as a GitHub library and runs the jobs; a failed job fails the caller. */
export async function ingestCorpora(runtime: Runtime, names: readonly string[]): Promise<void> {
  const jobs: Job[] = []
  for (const name of names) {
    jobs.push((await submitRepository(runtime.store, { sourceKind: 'github', docsRepoUrl: `https://github.com/${EVAL_OWNER}/${name}` }, runtime.guard)).job)
  }
  await runtime.worker.drain()
  for (const submitted of jobs) {
    const job = await runtime.store.jobs.byPk(submitted.pk)
    if (job?.state !== 'succeeded') {
      throw new Error(`ingesting job ${submitted.pk} ended ${job?.state ?? 'missing'}: ${job?.errorMessage ?? ''}`)
    }
  }
}
