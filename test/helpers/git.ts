/**
 * Local git repositories standing in for GitHub: the product clones `https://github.com/<owner>/<repo>`
 * and git's own `url.<base>.insteadOf` (set through GIT_CONFIG_* variables) sends that to a local dir.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execa } from 'execa'
import { onTestFinished } from 'vitest'
import { setProcessEnv, tmpDir, type Defer } from './tmp.js'

/** Content that marks a file as a symlink; a NUL cannot start a text fixture by accident. */
const SYMLINK_MARKER = '\0symlink\0'

/** A `files` entry that becomes a symlink pointing at `target`. */
export const symlinkTo = (target: string): string => `${SYMLINK_MARKER}${target}`

export interface GitRepo {
  dir: string
  commit: string
}

export interface MakeGitRepoOptions {
  /** Directory that holds the repo as `<parent>/<name>`; a fresh temp dir when omitted. */
  parent?: string
  name?: string
  defer?: Defer
}

/** Runs git without depending on the host's identity or default branch settings. */
export async function git(args: string[], cwd: string): Promise<string> {
  const { stdout } = await execa('git', ['-c', 'user.email=test@example.com', '-c', 'user.name=Test', ...args], { cwd })
  return stdout.trim()
}

/** A repository on branch `main` with one commit holding `files`. */
export async function makeGitRepo(files: Record<string, string | Buffer>, opts: MakeGitRepoOptions = {}): Promise<GitRepo> {
  const parent = opts.parent ?? (await tmpDir('lectern-repo-', opts.defer ?? onTestFinished))
  const dir = join(parent, opts.name ?? 'repo')
  await mkdir(dir, { recursive: true })
  for (const [path, content] of Object.entries(files)) {
    const file = join(dir, path)
    await mkdir(dirname(file), { recursive: true })
    if (typeof content === 'string' && content.startsWith(SYMLINK_MARKER)) await symlink(content.slice(SYMLINK_MARKER.length), file)
    else await writeFile(file, content)
  }
  await git(['init', '-q', '-b', 'main'], dir)
  await git(['add', '-A'], dir)
  await git(['commit', '-q', '-m', 'initial'], dir)
  return { dir, commit: await git(['rev-parse', 'HEAD'], dir) }
}

/** Environment that makes `https://github.com/acme/<repo>` clone `<baseDir>/<repo>`. */
export function gitRedirectEnv(baseDir: string): Record<string, string> {
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `url.${pathToFileURL(baseDir).href}/.insteadOf`,
    GIT_CONFIG_VALUE_0: 'https://github.com/acme/',
  }
}

/** Applies `gitRedirectEnv` to this process, for in-process jobs, until the defer step. */
export function redirectGitHub(baseDir: string, defer: Defer = onTestFinished): void {
  setProcessEnv(gitRedirectEnv(baseDir), defer)
}
