/**
 * `npm run eval:prepare -- [--set dev|conformance] [--out <dir>] [--mirrors <dir>] [corpus ...]`:
 * builds every corpus of bench/eval/<set>-corpora.json (dev by default) as a docs-only local git
 * repository at its pinned commit, from a
 * bare copy of the upstream repository (what the search tool's `fetch` brings, or any clone).
 *
 * Only git plumbing reads the mirror (ls-tree, cat-file), so the mirror is never written to and
 * no checkout attributes or filters apply. The files are the pinned commit's blobs, byte for byte;
 * the new repository has one commit whose author, dates and message are fixed, so the same
 * manifest always gives the same tree and commit ids.
 */
import fs from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { execa } from 'execa'
import {
  defaultMirrorsRoot,
  defaultReposRoot,
  loadManifest,
  manifestPath,
  mirrorCandidates,
  selectCorpora,
  type DevCorpus,
  type DevManifest,
} from './dev-corpora.js'

interface TreeEntry {
  mode: string
  sha: string
  path: string
}

interface Prepared {
  corpus: DevCorpus
  repoDir: string
  files: number
  bytes: number
  droppedAssets: number
  skippedLinks: number
  commit: string
  tree: string
}

/** A missing mirror or commit: reported together at the end, with how to get it. */
class MissingSource extends Error {}

/** Git that ignores the user's and the system's config, so nothing local changes an id. */
const HERMETIC_ENV = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' }

async function git(args: string[], options: { cwd?: string; input?: string | Uint8Array; env?: Record<string, string> } = {}) {
  return execa('git', args, { cwd: options.cwd, input: options.input, env: { ...HERMETIC_ENV, ...options.env }, maxBuffer: 2 ** 30 })
}

async function gitBuffer(args: string[], input: string): Promise<Buffer> {
  const result = await execa('git', args, { input, env: HERMETIC_ENV, encoding: 'buffer', maxBuffer: 2 ** 30 })
  return Buffer.from(result.stdout)
}

function fetchHint(corpus: DevCorpus, mirrorsRoot: string): string {
  const target = mirrorCandidates(corpus, mirrorsRoot)[0]
  return (
    `fetch it with the search tool (fetch "github:${corpus.repo}"), which puts it at ${target}, ` +
    `or clone it there yourself: git clone --bare https://github.com/${corpus.repo} ${target}`
  )
}

/** The git directory of the corpus's mirror; a folder that is not a git repository does not count. */
async function findMirror(corpus: DevCorpus, mirrorsRoot: string): Promise<string> {
  for (const candidate of mirrorCandidates(corpus, mirrorsRoot)) {
    if (!existsSync(candidate)) continue
    // The ceiling keeps git from answering with a repository above the mirrors folder.
    const found = await execa('git', ['-C', candidate, 'rev-parse', '--absolute-git-dir'], {
      reject: false,
      env: { ...HERMETIC_ENV, GIT_CEILING_DIRECTORIES: path.dirname(candidate) },
    })
    if (found.exitCode === 0) return found.stdout.trim()
  }
  throw new MissingSource(
    `${corpus.name}: no mirror of ${corpus.repo} (looked for a git directory at ${mirrorCandidates(corpus, mirrorsRoot).join(' and ')}); ` +
      fetchHint(corpus, mirrorsRoot),
  )
}

async function checkCommit(corpus: DevCorpus, gitDir: string, mirrorsRoot: string): Promise<string> {
  const found = await execa('git', ['--git-dir', gitDir, 'show', '-s', '--format=%cI', `${corpus.commit}^{commit}`], {
    reject: false,
    env: HERMETIC_ENV,
  })
  if (found.exitCode === 0) return found.stdout.trim()
  const head = await execa('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD'], { reject: false, env: HERMETIC_ENV })
  throw new MissingSource(
    `${corpus.name}: the mirror at ${gitDir} (HEAD ${head.stdout.trim() || 'unknown'}) lacks the pinned commit ${corpus.commit}; ` +
      `fetch the history that holds it (git --git-dir ${gitDir} fetch origin ${corpus.commit}) or ${fetchHint(corpus, mirrorsRoot)}`,
  )
}

function under(file: string, prefix: string): boolean {
  return prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix
}

async function listTree(corpus: DevCorpus, gitDir: string): Promise<TreeEntry[]> {
  const { stdout } = await git(['--literal-pathspecs', '--git-dir', gitDir, 'ls-tree', '-r', '-z', '--full-tree', corpus.commit, '--', ...corpus.keep])
  const entries = stdout
    .split('\0')
    .filter(Boolean)
    .map((record) => {
      const tab = record.indexOf('\t')
      const [mode, , sha] = record.slice(0, tab).split(' ')
      return { mode, sha, path: record.slice(tab + 1) }
    })
  const unmatched = corpus.keep.filter((keep) => !entries.some((e) => under(e.path, keep)))
  if (unmatched.length > 0) throw new Error(`${corpus.name}: ${unmatched.join(', ')} not found at ${corpus.repo}@${corpus.commit}; fix "keep" in the manifest`)
  return entries
}

/** Splits `git cat-file --batch` output into the blobs asked for, in order. */
function splitBatch(output: Buffer, count: number): Buffer[] {
  const blobs: Buffer[] = []
  let at = 0
  for (let i = 0; i < count; i++) {
    const eol = output.indexOf(0x0a, at)
    const [sha, type, size] = output.subarray(at, eol).toString('latin1').split(' ')
    if (type !== 'blob') throw new Error(`cat-file answered "${sha} ${type}" where a blob was expected`)
    const start = eol + 1
    blobs.push(output.subarray(start, start + Number(size)))
    at = start + Number(size) + 1
  }
  return blobs
}

async function writeFiles(gitDir: string, entries: TreeEntry[], dir: string): Promise<number> {
  const blobs = splitBatch(await gitBuffer(['--git-dir', gitDir, 'cat-file', '--batch'], entries.map((e) => `${e.sha}\n`).join('')), entries.length)
  let bytes = 0
  for (const [i, entry] of entries.entries()) {
    const file = path.join(dir, entry.path)
    await fs.mkdir(path.dirname(file), { recursive: true })
    await fs.writeFile(file, blobs[i], { mode: entry.mode === '100755' ? 0o755 : 0o644 })
    bytes += blobs[i].length
  }
  return bytes
}

/** Records the files as the one commit of a new repository in `dir`, without any filter or attribute. */
async function commitFiles(corpus: DevCorpus, entries: TreeEntry[], dir: string, date: string): Promise<{ commit: string; tree: string }> {
  await git(['init', '-q', '--initial-branch=main'], { cwd: dir })
  const { stdout: hashed } = await git(['hash-object', '-w', '--no-filters', '--stdin-paths'], { cwd: dir, input: entries.map((e) => `${e.path}\n`).join('') })
  const shas = hashed.split('\n')
  const changed = entries.find((e, i) => shas[i] !== e.sha)
  if (changed) throw new Error(`${corpus.name}: ${changed.path} was not written as blob ${changed.sha}`)
  await git(['update-index', '-z', '--add', '--index-info'], { cwd: dir, input: entries.map((e) => `${e.mode} ${e.sha}\t${e.path}\0`).join('') })
  const { stdout: tree } = await git(['write-tree'], { cwd: dir })
  const identity = { NAME: 'Lectern eval', EMAIL: 'eval@lectern.local', DATE: date }
  const env = Object.fromEntries(
    Object.entries(identity).flatMap(([key, value]) => [
      [`GIT_AUTHOR_${key}`, value],
      [`GIT_COMMITTER_${key}`, value],
    ]),
  )
  const message = [
    `${corpus.name}: docs of ${corpus.repo} (${corpus.toolchain})`,
    '',
    `Kept: ${corpus.keep.join(' ')}`,
    ...(corpus.exclude.length > 0 ? [`Left out: ${corpus.exclude.join(' ')}`] : []),
    '',
    `Upstream-Repository: ${corpus.repo}`,
    `Upstream-Commit: ${corpus.commit}`,
  ].join('\n')
  const { stdout: commit } = await git(['commit-tree', tree, '-m', message], { cwd: dir, env })
  await git(['update-ref', 'refs/heads/main', commit], { cwd: dir })
  await git(['update-index', '-q', '--refresh'], { cwd: dir })
  return { commit, tree }
}

async function prepareCorpus(manifest: DevManifest, corpus: DevCorpus, mirrorsRoot: string, reposRoot: string): Promise<Prepared> {
  const gitDir = await findMirror(corpus, mirrorsRoot)
  const date = await checkCommit(corpus, gitDir, mirrorsRoot)
  const listed = await listTree(corpus, gitDir)
  const dropped = new Set(manifest.dropExtensions)
  const isAsset = (file: string) => dropped.has(path.extname(file).slice(1).toLowerCase())
  // Symlinks and submodules are not documentation, and a link could point out of the repository.
  const blobs = listed.filter((e) => e.mode === '100644' || e.mode === '100755')
  const entries = blobs.filter((e) => !corpus.exclude.some((ex) => under(e.path, ex)) && !isAsset(e.path))
  const repoDir = path.join(reposRoot, corpus.name)
  const staging = path.join(reposRoot, `.${corpus.name}.partial`)
  await fs.rm(staging, { recursive: true, force: true })
  await fs.mkdir(staging, { recursive: true })
  try {
    const bytes = await writeFiles(gitDir, entries, staging)
    const ids = await commitFiles(corpus, entries, staging, date)
    await fs.rm(repoDir, { recursive: true, force: true })
    await fs.rename(staging, repoDir)
    const droppedAssets = blobs.filter((e) => !corpus.exclude.some((ex) => under(e.path, ex)) && isAsset(e.path)).length
    return { corpus, repoDir, files: entries.length, bytes, droppedAssets, skippedLinks: listed.length - blobs.length, ...ids }
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true })
    throw err
  }
}

function describe(p: Prepared): string {
  const skipped = [p.droppedAssets > 0 ? `${p.droppedAssets} assets dropped` : '', p.skippedLinks > 0 ? `${p.skippedLinks} links/submodules skipped` : '']
    .filter(Boolean)
    .join(', ')
  return (
    `${p.corpus.name.padEnd(14)} ${p.corpus.repo}@${p.corpus.commit.slice(0, 12)}  ${String(p.files).padStart(4)} files  ` +
    `${(p.bytes / 1e6).toFixed(2).padStart(6)} MB  commit ${p.commit.slice(0, 12)} tree ${p.tree.slice(0, 12)}` +
    (skipped ? `  (${skipped})` : '')
  )
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { out: { type: 'string' }, mirrors: { type: 'string' }, set: { type: 'string', default: 'dev' } },
    allowPositionals: true,
  })
  if (values.set !== 'dev' && values.set !== 'conformance') throw new Error(`--set takes dev or conformance, not ${values.set}`)
  const manifest = await loadManifest(manifestPath(values.set))
  const corpora = selectCorpora(manifest, positionals)
  const reposRoot = path.resolve(values.out ?? defaultReposRoot(values.set))
  const mirrorsRoot = path.resolve(values.mirrors ?? defaultMirrorsRoot())
  await fs.mkdir(reposRoot, { recursive: true })
  const missing: string[] = []
  // One corpus at a time: the machine is shared and git is the bottleneck anyway.
  for (const corpus of corpora) {
    try {
      console.log(describe(await prepareCorpus(manifest, corpus, mirrorsRoot, reposRoot)))
    } catch (err) {
      if (!(err instanceof MissingSource)) throw err
      missing.push(err.message)
    }
  }
  if (missing.length > 0) {
    console.error(`\nnot prepared (${missing.length} of ${corpora.length}):\n${missing.map((m) => `- ${m}`).join('\n')}`)
    process.exitCode = 1
    return
  }
  console.log(`\n${corpora.length} corpora in ${reposRoot}`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err)
  process.exitCode = 1
})
