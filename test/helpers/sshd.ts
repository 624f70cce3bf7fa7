/**
 * A git host over SSH: Debian's OpenSSH server on a loopback port, with a host key of its own,
 * public-key sign-in only, and one authorized deploy key whose only command is git-shell (what a
 * `git-shell` user's login gives), serving the repositories under `root` by absolute path. It
 * signs in the user running the tests, so it needs no system user of its own.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { freePort } from './server.js'
import { tmpDir, type Defer } from './tmp.js'

export interface SshGitHost {
  port: number
  user: string
  /** The deploy key sshd accepts (private, unencrypted) and its public half. */
  deployKey: string
  deployPublicKey: string
  /** The host's real key, as a known_hosts line, and a line with another key for the same host (a "changed" key). */
  knownHosts: string
  otherKnownHosts: string
  /** `ssh://user@127.0.0.1:port/<root>/<repo>`. */
  url(repo: string): string
}

async function keyPair(dir: string, name: string): Promise<{ privateKey: string; publicKey: string }> {
  const file = path.join(dir, name)
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file])
  return { privateKey: await readFile(file, 'utf8'), publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() }
}

export async function startSshGitHost(root: string, defer: Defer): Promise<SshGitHost> {
  const dir = await tmpDir('lectern-sshd-', defer)
  const [hostKey, otherHostKey, deploy] = await Promise.all([keyPair(dir, 'host_key'), keyPair(dir, 'other_host_key'), keyPair(dir, 'deploy')])
  await writeFile(path.join(dir, 'authorized_keys'), `command="git-shell -c \\"$SSH_ORIGINAL_COMMAND\\"",no-port-forwarding,no-X11-forwarding,no-agent-forwarding,no-pty ${deploy.publicKey}\n`)
  const port = await freePort()
  const user = os.userInfo().username
  await writeFile(
    path.join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${path.join(dir, 'host_key')}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      `AllowUsers ${user}`,
      '',
    ].join('\n'),
  )
  // Run as root, sshd wants its privilege-separation directory.
  if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 })
  const sshd = execa('/usr/sbin/sshd', ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { reject: false, stdin: 'ignore' })
  defer(async () => {
    sshd.kill('SIGTERM')
    await sshd
  })
  await new Promise<void>((resolve, reject) => {
    let seen = ''
    const onData = (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.includes('Server listening on')) {
        sshd.stderr!.off('data', onData)
        resolve()
      }
    }
    sshd.stderr!.on('data', onData)
    void sshd.then((ended) => reject(new Error(`sshd ended before it listened: ${seen}${String(ended.stderr ?? '')}`)))
  })
  const keyOf = (publicKey: string) => publicKey.split(' ').slice(0, 2).join(' ')
  return {
    port,
    user,
    deployKey: deploy.privateKey,
    deployPublicKey: deploy.publicKey,
    knownHosts: `[127.0.0.1]:${port} ${keyOf(hostKey.publicKey)}\n`,
    otherKnownHosts: `[127.0.0.1]:${port} ${keyOf(otherHostKey.publicKey)}\n`,
    url: (repo) => `ssh://${user}@127.0.0.1:${port}${path.join(root, repo)}`,
  }
}
