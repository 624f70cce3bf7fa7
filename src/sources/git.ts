/**
 * Runs the real git through execa with argument arrays, never a shell string. An access token
 * travels only as an `http.extraHeader` set through GIT_CONFIG_* environment variables: it is
 * never in a URL, an argument list, `.git/config` or an error message (git's stderr is redacted
 * before it is quoted). With an address guard (cloud mode) every command that reaches the remote
 * checks it first and runs pinned to the checked addresses (git-guard.ts).
 */
import { writeFileSync } from 'node:fs'
import { rm, stat } from 'node:fs/promises'
import os from 'node:os'
import type { ExecaError } from 'execa'
import { isDiskFull } from '../install/disk-full.js'
import { LecternError } from '../errors.js'
import type { AddressGuard } from './address-guard.js'
import { guardGitRemote, type GitConfigEntry } from './git-guard.js'
import { sshProblem, withSshIdentity, type SshIdentity } from './git-ssh.js'
import { isSafeRefName } from './repo-url.js'

export interface CloneOptions {
  cloneUrl: string
  destDir: string
  /** Branch or tag; the remote's default branch when omitted. */
  ref?: string
  token?: string
  /** Overrides merged over process.env; GIT_CONFIG_* entries in either are kept. */
  env?: NodeJS.ProcessEnv
  signal?: AbortSignal
  timeoutMs?: number
  /** Cloud mode: the remote must pass the private-address guard, and git stays on what it checked. */
  guard?: AddressGuard
  /** An SSH remote's deploy key and known hosts (git-ssh.ts). */
  ssh?: SshIdentity
}

export interface CloneResult {
  commit: string
  /** The checked-out branch, or the ref itself when it named a tag. */
  branch: string
}

export interface RemoteControl {
  signal?: AbortSignal
  timeoutMs?: number
  /** Cloud mode: the remote must pass the private-address guard, and git stays on what it checked. */
  guard?: AddressGuard
  /** An SSH remote's deploy key and known hosts (git-ssh.ts). */
  ssh?: SshIdentity
}

const DEFAULT_CLONE_TIMEOUT_MS = 10 * 60_000
const DEFAULT_REMOTE_TIMEOUT_MS = 60_000
/** Enough of git's complaint to say what went wrong without flooding a job log. */
const MAX_DETAIL_CHARS = 500
/** How long git gets to clean up after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 5_000

interface GitRun {
  /** What the error message calls the operation, e.g. "git clone of https://…". */
  label: string
  env: NodeJS.ProcessEnv
  token?: string
  cwd?: string
  signal?: AbortSignal
  timeoutMs: number
  /** Redirects are not followed (cloud mode), so a redirect answer is explained as such. */
  guarded: boolean
  ssh?: SshIdentity
  /** The remote's URL, for what a host key refusal names. */
  remote: string
}

export async function cloneRepo(opts: CloneOptions): Promise<CloneResult> {
  if (opts.ref !== undefined) assertSafeRef(opts.ref)
  const guardConfig = opts.guard ? await guardGitRemote(opts.cloneUrl, opts.guard) : []
  const run: GitRun = {
    label: `git clone of ${redact(opts.cloneUrl, opts.token)}`,
    env: buildGitEnv({ ...process.env, ...opts.env }, opts.token, guardConfig),
    token: opts.token,
    signal: opts.signal,
    timeoutMs: opts.timeoutMs ?? DEFAULT_CLONE_TIMEOUT_MS,
    guarded: opts.guard !== undefined,
    ssh: opts.ssh,
    remote: opts.cloneUrl,
  }
  const branchArgs = opts.ref === undefined ? [] : ['--branch', opts.ref]
  const existedBefore = await pathExists(opts.destDir)
  try {
    // Creating the checkout's files can be most of a clone (1.4 s of 2.0 s for 2,000 files on
    // this project's test hosts); `checkout.workers=0` writes them with one worker a core.
    await runGit(['-c', 'checkout.workers=0', 'clone', '--depth', '1', '--single-branch', ...branchArgs, '--no-tags', '--', opts.cloneUrl, opts.destDir], run)
  } catch (err) {
    // A killed git leaves a half-written directory that would make the next clone fail.
    if (!existedBefore) await rm(opts.destDir, { recursive: true, force: true })
    throw err
  }
  // Local commands need no key.
  const local = { ...run, ssh: undefined, cwd: opts.destDir, label: `git in the clone of ${redact(opts.cloneUrl, opts.token)}` }
  const commit = (await runGit(['rev-parse', 'HEAD'], local)).trim()
  return { commit, branch: await currentBranch(local, opts.ref) }
}

/** Commit SHA the ref (or the remote HEAD) points at, without cloning; tags are peeled to their commit. */
export async function lsRemoteHead(
  cloneUrl: string,
  ref?: string,
  token?: string,
  env?: NodeJS.ProcessEnv,
  control: RemoteControl = {},
): Promise<string> {
  if (ref !== undefined) assertSafeRef(ref)
  const run = await remoteRun(cloneUrl, token, env, control)
  const patterns = ref === undefined ? ['HEAD'] : [`refs/heads/${ref}`, `refs/tags/${ref}`, `refs/tags/${ref}^{}`]
  const refs = parseLsRemote(await runGit(['ls-remote', '--', cloneUrl, ...patterns], run))
  // Branches win over tags, as with `git clone --branch`; a peeled tag names the commit a clone checks out.
  const wanted = ref === undefined ? ['HEAD'] : [`refs/heads/${ref}`, `refs/tags/${ref}^{}`, `refs/tags/${ref}`]
  const sha = wanted.map((name) => refs.get(name)).find((s) => s !== undefined)
  if (sha === undefined) {
    throw new LecternError('source_unreachable', `${redact(cloneUrl, token)} has no ${ref === undefined ? 'HEAD' : `branch or tag named "${ref}"`}.`)
  }
  return sha
}

/** Tag names of the remote, in git's (refname) order. */
export async function listRemoteTags(
  cloneUrl: string,
  token?: string,
  env?: NodeJS.ProcessEnv,
  control: RemoteControl = {},
): Promise<string[]> {
  const run = await remoteRun(cloneUrl, token, env, control)
  const refs = parseLsRemote(await runGit(['ls-remote', '--tags', '--refs', '--', cloneUrl], run))
  return [...refs.keys()].map((name) => name.slice('refs/tags/'.length))
}

async function remoteRun(cloneUrl: string, token: string | undefined, env: NodeJS.ProcessEnv | undefined, control: RemoteControl): Promise<GitRun> {
  const guardConfig = control.guard ? await guardGitRemote(cloneUrl, control.guard) : []
  return {
    label: `git ls-remote of ${redact(cloneUrl, token)}`,
    env: buildGitEnv({ ...process.env, ...env }, token, guardConfig),
    token,
    signal: control.signal,
    timeoutMs: control.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS,
    guarded: control.guard !== undefined,
    ssh: control.ssh,
    remote: cloneUrl,
  }
}

function parseLsRemote(stdout: string): Map<string, string> {
  const refs = new Map<string, string>()
  for (const line of stdout.split('\n')) {
    const [sha, name] = line.split('\t')
    if (sha && name) refs.set(name.trim(), sha.trim())
  }
  return refs
}

async function currentBranch(run: GitRun, ref: string | undefined): Promise<string> {
  try {
    return (await runGit(['symbolic-ref', '--short', 'HEAD'], run)).trim()
  } catch (err) {
    // A tag checkout leaves HEAD detached; the tag is then the best name for what was cloned.
    if (ref !== undefined) return ref
    throw err
  }
}

function assertSafeRef(ref: string): void {
  if (!isSafeRefName(ref)) throw new LecternError('validation_error', `"${ref}" is not a valid branch or tag name.`)
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}

/**
 * The environment git runs with: the inherited GIT_CONFIG_* entries renumbered from 0 (gaps
 * and stale keys dropped), then ours (`extra`, then the token's header), which win where a key
 * takes one value. No prompt can block a worker: terminal prompts are off,
 * GIT_ASKPASS is empty (which also stops git falling back to SSH_ASKPASS) and ssh runs in batch mode.
 */
export function buildGitEnv(base: NodeJS.ProcessEnv, token?: string, extra: GitConfigEntry[] = []): NodeJS.ProcessEnv {
  const inherited = readConfigEntries(base)
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(base)) {
    if (!/^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/.test(key)) env[key] = value
  }
  const entries = [...inherited, ...extra, ...(token ? [['http.extraHeader', authorizationHeader(token)] as const] : [])]
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key
    env[`GIT_CONFIG_VALUE_${i}`] = value
  })
  if (entries.length > 0) env.GIT_CONFIG_COUNT = String(entries.length)
  env.GIT_TERMINAL_PROMPT = '0'
  env.GIT_ASKPASS = ''
  // Docs do not need large binaries, and an LFS smudge would be a second, unauthenticated download.
  env.GIT_LFS_SKIP_SMUDGE = '1'
  if (env.GIT_SSH_COMMAND === undefined && env.GIT_SSH === undefined) env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes'
  return env
}

function readConfigEntries(env: NodeJS.ProcessEnv): GitConfigEntry[] {
  const count = Number(env.GIT_CONFIG_COUNT ?? 0)
  if (!Number.isSafeInteger(count) || count <= 0) return []
  const entries: GitConfigEntry[] = []
  for (let i = 0; i < count; i++) {
    const key = env[`GIT_CONFIG_KEY_${i}`]
    if (key) entries.push([key, env[`GIT_CONFIG_VALUE_${i}`] ?? ''] as const)
  }
  return entries
}

/** `x-access-token` is the user name GitHub documents; GitLab and Bitbucket ignore it and check the token. */
function authorizationHeader(token: string): string {
  return `Authorization: Basic ${basicCredential(token)}`
}

function basicCredential(token: string): string {
  return Buffer.from(`x-access-token:${token}`).toString('base64')
}

async function runGit(args: string[], run: GitRun): Promise<string> {
  if (run.ssh) return await withSshIdentity(run.ssh, async (ssh) => await runGit(args, { ...run, ssh: undefined, env: { ...run.env, ...ssh } }))
  run.signal?.throwIfAborted()
  // execa brings a hundred modules; every command imports this file (for `redact`), few run git.
  const { execa, ExecaError } = await import('execa')
  // Detached, git leads its own process group, so a kill also reaches its helpers and it has no terminal to prompt on.
  const subprocess = execa('git', args, {
    env: run.env,
    extendEnv: false,
    cwd: run.cwd,
    stdin: 'ignore',
    detached: true,
    stripFinalNewline: false,
  })
  const { pid } = subprocess
  if (pid !== undefined) {
    keepPriority(pid)
    liveGroups.add(pid)
  }
  const deadline = watchDeadline(pid, run)
  try {
    return (await subprocess).stdout
  } catch (err) {
    throw toLecternError(err, err instanceof ExecaError ? err : undefined, run, deadline.stoppedBy())
  } finally {
    deadline.dispose()
    if (pid !== undefined) liveGroups.delete(pid)
  }
}

/** The process groups of the gits running now, each led by its git. */
const liveGroups = new Set<number>()

/**
 * Kills every git this process runs, with its helpers. A detached git does not end with the
 * process that started it: the job process calls this when it ends without a stop (its server
 * died), so that no clone goes on writing into a directory a new attempt may use.
 */
export function stopGitProcesses(): void {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL')
  liveGroups.clear()
}

/**
 * A detached git leads a session of its own, and where Linux schedules sessions as groups
 * (autogroup) the nice value it inherited would only rank it against its own helpers: its group
 * gets the priority of the process that runs it, the job process's nice 19 (src/jobs/priority.ts).
 */
function keepPriority(pid: number): void {
  const nice = os.getPriority()
  if (nice <= 0) return
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice))
  } catch {
    // No autogroup (another system, a kernel without it, or git already ended): the inherited nice value holds.
  }
}

type StopCause = 'timeout' | 'abort'

/**
 * Git hands HTTP to a git-remote-https child that inherits git's pipes: killing git alone would
 * leave the read waiting on that child, so the whole process group is terminated.
 */
function watchDeadline(pid: number | undefined, run: GitRun) {
  let cause: StopCause | undefined
  let escalation: NodeJS.Timeout | undefined
  const stop = (why: StopCause) => {
    if (cause !== undefined || pid === undefined) return
    cause = why
    signalGroup(pid, 'SIGTERM')
    escalation = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS)
  }
  const timer = setTimeout(() => stop('timeout'), run.timeoutMs)
  const onAbort = () => stop('abort')
  run.signal?.addEventListener('abort', onAbort, { once: true })
  return {
    stoppedBy: () => cause,
    dispose: () => {
      clearTimeout(timer)
      clearTimeout(escalation)
      run.signal?.removeEventListener('abort', onAbort)
    },
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // The group is already gone.
  }
}

/**
 * `failed` is `err` when git ran and failed (an ExecaError). It is deliberately not attached as
 * `cause`: its unredacted stderr would reach loggers.
 */
function toLecternError(err: unknown, failed: ExecaError | undefined, run: GitRun, stoppedBy: StopCause | undefined): unknown {
  if (stoppedBy === 'abort') return run.signal?.reason
  if (stoppedBy === 'timeout') return new LecternError('timeout', `${run.label} timed out after ${run.timeoutMs} ms.`)
  if (!failed) return err
  if (failed.code === 'ENOENT') return new LecternError('internal_error', 'git is not installed or not on PATH.')
  const detail = summarizeStderr(redact(String(failed.stderr ?? ''), run.token))
  // Our disk, not the source: git says so in its own words ("No space left on device").
  if (isDiskFull(new Error(detail))) return new LecternError('disk_full', `${run.label} failed: the disk is full (${detail})`)
  const hostKey = sshProblem(detail, remoteHost(run.remote))
  if (hostKey) return new LecternError('source_unreachable', `${run.label} failed: ${hostKey}`)
  if (run.guarded && /returned error: 30\d/.test(detail)) {
    return new LecternError('source_unreachable', `${run.label} failed: the server answered with a redirect, which is not followed in cloud mode; add the repository at the URL it redirects to.`)
  }
  return new LecternError('source_unreachable', `${run.label} failed: ${detail || `git exited with code ${failed.exitCode ?? 'unknown'}`}`)
}

/** `host[:port]` of a remote URL (https, ssh:// or scp-like), for messages. */
function remoteHost(url: string): string {
  const scp = /^[^@/]+@([^:/]+):/.exec(url)
  if (scp) return scp[1]
  try {
    return new URL(url).host
  } catch {
    return 'the remote'
  }
}

function summarizeStderr(stderr: string): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((l) => l.replace(/^(fatal|error|remote):\s*/i, '').trim())
    .filter((l) => l !== '' && !/^Cloning into /i.test(l))
  const text = lines.join('; ')
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text
}

/** Removes the token in every form git could echo it: raw, inside Basic credentials, in a header or a URL. */
export function redact(text: string, token?: string): string {
  let out = text
  if (token) {
    for (const secret of [basicCredential(token), `x-access-token:${token}`, token]) out = out.split(secret).join('[REDACTED]')
  }
  return out
    .replace(/(Authorization:\s*)[^\r\n]*/gi, '$1[REDACTED]')
    // An ssh:// user name alone is a login (git), not a credential: kept, as ssh's own messages show it.
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, (match, scheme: string) =>
      scheme.toLowerCase() === 'ssh://' && !match.slice(scheme.length).includes(':') ? match : `${scheme}[REDACTED]@`,
    )
}
