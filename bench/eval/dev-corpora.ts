/**
 * The development corpora of issue 10: real documentation repositories, each pinned to one
 * upstream commit. Their sources are never committed here; `bench/eval/prepare` builds each one
 * as a docs-only local git repository from a bare copy (mirror) of the upstream repository.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { projectRoot } from './corpora.js'

const repoPath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'must be a path inside the repository')

const DevCorpusSchema = z.object({
  /** Local repository name, and the `library` of the questions about it. */
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  /** Upstream GitHub repository, `owner/name`. */
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/),
  toolchain: z.string().min(1),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  /** Folders (ending in `/`) and files of the upstream tree that the docs-only repository keeps. */
  keep: z.array(repoPath).min(1),
  /** Folders or files under `keep` that are left out (site themes, scripts, static assets). */
  exclude: z.array(repoPath),
  /**
   * How the docs' include directives and imports name files: a prefix and the repository folder
   * it stands for (`@` is VitePress's source dir, `/` a Sphinx source root, `@mdx` an alias).
   */
  includeRoots: z.record(z.string().min(1), z.string()),
  /** The repository of issue 10's list that this corpus stands in for, when that one could not be had. */
  substituteFor: z.string().optional(),
  substituteReason: z.string().optional(),
})

const ManifestSchema = z.object({
  /** File extensions (binary assets) dropped from every corpus. */
  dropExtensions: z.array(z.string().regex(/^[a-z0-9]+$/)),
  corpora: z.array(DevCorpusSchema).min(1),
})

export type DevCorpus = z.infer<typeof DevCorpusSchema>
export type DevManifest = z.infer<typeof ManifestSchema>

/**
 * The corpus sets: `dev`, the development set the questions are about; `conformance`, twenty
 * more repositories of other toolchains whose extraction report `npm run eval:conformance` prints
 * (issue 30), with no questions.
 */
export type CorpusSet = 'dev' | 'conformance'

export const manifestPath = (set: CorpusSet = 'dev') => path.join(projectRoot(), 'bench', 'eval', `${set}-corpora.json`)

export async function loadManifest(file = manifestPath()): Promise<DevManifest> {
  const parsed = ManifestSchema.safeParse(JSON.parse(await fs.readFile(file, 'utf8')))
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  const names = parsed.data.corpora.map((c) => c.name)
  const doubled = names.find((n, i) => names.indexOf(n) !== i)
  if (doubled) throw new Error(`${file}: corpus "${doubled}" is listed twice`)
  return parsed.data
}

/** Where the prepared repositories go: `--out`, else LECTERN_EVAL_REPOS (the dev set's), else bench/.work/<set>-repos. */
export function defaultReposRoot(set: CorpusSet = 'dev'): string {
  return (set === 'dev' ? process.env.LECTERN_EVAL_REPOS : undefined) ?? path.join(projectRoot(), 'bench', '.work', `${set}-repos`)
}

/** Where the fetched mirrors are: `--mirrors`, else LECTERN_EVAL_MIRRORS, else /work/.mirror. */
export function defaultMirrorsRoot(): string {
  return process.env.LECTERN_EVAL_MIRRORS ?? '/work/.mirror'
}

/** The search tool's `fetch` puts `owner/name` at `<root>/owner+name/repo`; a plain `<root>/owner+name` clone works too. */
export function mirrorCandidates(corpus: DevCorpus, mirrorsRoot: string): string[] {
  const folder = path.join(mirrorsRoot, corpus.repo.replace('/', '+'))
  return [path.join(folder, 'repo'), folder]
}

/** The corpora named on the command line, or all of them; an unknown name is an error. */
export function selectCorpora(manifest: DevManifest, names: string[]): DevCorpus[] {
  if (names.length === 0) return manifest.corpora
  const known = new Map(manifest.corpora.map((c) => [c.name, c]))
  return names.map((name) => {
    const corpus = known.get(name)
    if (!corpus) throw new Error(`unknown corpus "${name}"; the manifest lists ${[...known.keys()].join(', ')}`)
    return corpus
  })
}
