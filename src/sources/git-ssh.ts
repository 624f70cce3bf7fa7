/**
 * Git over SSH (on-premise): a repository at `ssh://` or `user@host:path` is read with the deploy
 * key of the install's SSH git connection for its host (`lectern connections add git --host
 * ssh://host[:port] --ssh-key-file ... --known-hosts-file ...`), never with the service user's own
 * keys, and only from a host whose key is one of that connection's known hosts.
 *
 * The guarantees:
 * - Host keys are checked strictly: an unknown or changed host key ends the command before
 *   anything is sent, and the error says which of the two it was. Host keys are never learned.
 * - Nothing of the service user's ssh setup is used: no ssh_config, keys, agent or control sockets.
 * - The deploy key is written, only for the length of one git command, to a file of mode 0600
 *   in a directory of mode 0700 that is removed when the command ends, however it ends; a
 *   process killed meanwhile leaves it, and the next start removes it (sweepStaleSshDirs).
 * - The ssh command line git runs (GIT_SSH_COMMAND, which git hands to a shell) is made only of
 *   fixed options and the paths of those files, which are checked to hold no character a shell
 *   would read: nothing a user typed is in it.
 */
import { createHmac } from 'node:crypto'
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { LecternError } from '../errors.js'

/** The deploy key and the host keys it trusts, as an SSH git connection holds them. */
export interface SshIdentity {
  privateKey: string
  knownHosts: string
}

const SAFE_PATH = /^[A-Za-z0-9/._-]+$/

/** Runs `fn` with GIT_SSH_COMMAND set to use `identity` and nothing else; the key's file is gone when it returns. */
export async function withSshIdentity<T>(identity: SshIdentity, fn: (env: { GIT_SSH_COMMAND: string }) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lectern-ssh-'))
  try {
    const key = path.join(dir, 'id')
    const knownHosts = path.join(dir, 'known_hosts')
    if (!SAFE_PATH.test(key)) throw new LecternError('internal_error', `The temporary directory ${dir} has characters an ssh command line cannot hold; set TMPDIR to a plain path.`)
    await writeFile(key, identity.privateKey.endsWith('\n') ? identity.privateKey : `${identity.privateKey}\n`, { mode: 0o600 })
    await writeFile(knownHosts, identity.knownHosts, { mode: 0o600 })
    // No ssh_config is read (-F /dev/null): the service user's keys, agent, multiplexed connections
    // and proxies are never used, only what the connection says.
    const options = [
      'BatchMode=yes',
      'ControlMaster=no',
      'ControlPath=none',
      'IdentitiesOnly=yes',
      `IdentityFile=${key}`,
      'IdentityAgent=none',
      `UserKnownHostsFile=${knownHosts}`,
      'GlobalKnownHostsFile=/dev/null',
      'StrictHostKeyChecking=yes',
      'UpdateHostKeys=no',
      'CheckHostIP=no',
      'ConnectTimeout=30',
    ]
    return await fn({ GIT_SSH_COMMAND: ['ssh', '-F', '/dev/null', ...options.flatMap((o) => ['-o', o])].join(' ') })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Longer than any git command runs (its timeouts are minutes): a key directory this old was left by a process that died. */
const STALE_KEY_DIR_MS = 60 * 60_000

/**
 * Removes deploy key directories a killed process left in the temporary directory (the key's
 * file is removed when its command ends, however it ends, unless the process itself dies).
 */
export async function sweepStaleSshDirs(now = Date.now()): Promise<number> {
  let swept = 0
  for (const entry of await readdir(os.tmpdir(), { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith('lectern-ssh-')) continue
    const dir = path.join(os.tmpdir(), entry.name)
    const { mtimeMs } = await stat(dir)
    if (now - mtimeMs < STALE_KEY_DIR_MS) continue
    await rm(dir, { recursive: true, force: true })
    swept++
  }
  return swept
}

/** What ssh's complaint about a host key or the deploy key means, said plainly; undefined when it is about something else. */
export function sshProblem(stderr: string, host: string): string | undefined {
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(stderr)) {
    return `the SSH host key of ${host} has CHANGED: it is not the one the connection's known hosts hold. Nothing was fetched. If the host's key was replaced on purpose, remove the connection and add it again with the new key in --known-hosts-file (\`ssh-keyscan\` on a trusted network, checked against the host's fingerprint); otherwise someone may be impersonating the host.`
  }
  if (/No \S+ host key is known for|Host key verification failed/i.test(stderr)) {
    return `the SSH host key of ${host} is unknown: none of the connection's known hosts is for this host and key. Nothing was fetched. Add the host's key to the connection (remove it and add it again with --known-hosts-file).`
  }
  if (/Permission denied \(publickey/i.test(stderr)) {
    return `${host} refused the deploy key. Install the connection's public key on the host as a deploy key with read access to the repository (\`lectern connections list --json\` shows it as publicKey), and check the user in the repository's URL.`
  }
  return undefined
}

const KEY_TYPES = /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com|rsa-sha2-(256|512))$/

/** `host` or `[host]:port`, as a known_hosts line names a host (port 22 without brackets). */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`
}

/**
 * Checks known_hosts text: every line a host, a key type and a base64 key (comments and blank
 * lines dropped), and at least one naming `host` at `port` (or hashed, which cannot be read back).
 * Returns the lines kept.
 */
export function checkKnownHosts(text: string, host: string, port: number): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
  if (lines.length === 0) throw new LecternError('validation_error', `Give the host keys to trust (--known-hosts-file): strict host key checking needs at least one for ${knownHostsName(host, port)}. \`ssh-keyscan -p ${port} ${host}\` prints them; check their fingerprints against the host's before you trust them.`)
  const wanted = knownHostsName(host, port).toLowerCase()
  let names = false
  lines.forEach((line, i) => {
    const fields = line.split(/\s+/)
    const [hosts, type, key] = fields[0]?.startsWith('@') ? fields.slice(1) : fields
    if (fields[0]?.startsWith('@') && fields[0] !== '@cert-authority' && fields[0] !== '@revoked') throw new LecternError('validation_error', `known hosts line ${i + 1}: "${fields[0]}" is not a marker ssh knows (@cert-authority, @revoked).`)
    if (!hosts || !type || !key || !KEY_TYPES.test(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(key)) {
      throw new LecternError('validation_error', `known hosts line ${i + 1} is not "<host> <key type> <base64 key>" (as ssh-keyscan prints).`)
    }
    const marker = fields[0]?.startsWith('@') ? fields[0] : undefined
    for (const name of hosts.split(',')) {
      if (/[*?]/.test(name) && marker !== '@cert-authority') throw new LecternError('validation_error', `known hosts line ${i + 1}: "${name}" is a pattern; name the host itself (patterns are for @cert-authority lines).`)
      if (marker !== '@revoked' && namesHost(name, wanted, marker === '@cert-authority')) names = true
    }
  })
  if (!names) throw new LecternError('validation_error', `None of the known hosts is for ${wanted}: ssh would refuse the host. Keys for another port are written [host]:port.`)
  return `${lines.join('\n')}\n`
}

/** Whether a known_hosts host field names `wanted`: itself, hashed (`|1|salt|hash`, as ssh-keygen -H writes), or, for a CA, a pattern. */
function namesHost(name: string, wanted: string, pattern: boolean): boolean {
  const hashed = /^\|1\|([A-Za-z0-9+/=]+)\|([A-Za-z0-9+/=]+)$/.exec(name)
  if (hashed) return createHmac('sha1', Buffer.from(hashed[1], 'base64')).update(wanted).digest('base64') === hashed[2]
  if (pattern) {
    const glob = name.toLowerCase().replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')
    return new RegExp(`^${glob}$`).test(wanted)
  }
  return name.toLowerCase() === wanted
}

/**
 * The public half of an unencrypted private key (what the git host is given as the deploy key),
 * which also proves the key is one ssh can use without a passphrase.
 */
export async function deployKeyPublicHalf(privateKey: string): Promise<string> {
  const { execa } = await import('execa')
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lectern-ssh-'))
  try {
    const file = path.join(dir, 'id')
    await writeFile(file, privateKey.endsWith('\n') ? privateKey : `${privateKey}\n`, { mode: 0o600 })
    // -P '': a key with a passphrase fails instead of prompting; no shell, no terminal.
    const derived = await execa('ssh-keygen', ['-y', '-P', '', '-f', file], { reject: false, stdin: 'ignore' })
    if (derived.exitCode !== 0) {
      throw new LecternError('validation_error', 'The SSH key is not an unencrypted private key ssh can read (a key with a passphrase cannot be used unattended; `ssh-keygen -p -N "" -f <file>` removes it from a copy).')
    }
    return derived.stdout.trim()
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** `host` and port of an SSH git host as the operator writes it: `ssh://host[:port]` or `host[:port]`. */
export function parseSshHost(raw: string): { host: string; port: number } {
  const text = raw.trim().replace(/^ssh:\/\//i, '').replace(/\/+$/, '')
  const match = /^(?:[A-Za-z0-9._][A-Za-z0-9._-]*@)?([A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/.exec(text)
  const port = match?.[2] === undefined ? 22 : Number(match[2])
  if (!match || port < 1 || port > 65535) throw new LecternError('validation_error', `"${raw}" is not an SSH host; write ssh://host or ssh://host:port.`)
  return { host: match[1].toLowerCase(), port }
}
