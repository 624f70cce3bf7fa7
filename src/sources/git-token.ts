/**
 * The credentials a git command uses. Over https, a token (sent as an `http.extraHeader`, see
 * git.ts): the one submitted with the job, else the stored git connection for the repository's
 * host (`lectern connections add git`), so private repositories of a known host need no token on
 * every add. Over SSH, the deploy key and known hosts of the install's SSH git connection for the
 * host (git-ssh.ts), without which an SSH repository is not read at all. `scope` says whose
 * connections the library reads through, if any (tenancy/stored-connections.ts).
 */
import { LecternError } from '../errors.js'
import type { ConnectionScope } from '../store/connections.js'
import type { Store } from '../store/index.js'
import type { AddressGuard } from './address-guard.js'
import type { SshIdentity } from './git-ssh.js'
import { isSshUrl } from './repo-url.js'

export async function gitToken(store: Store, submitted: string | undefined, host: string, scope: ConnectionScope | undefined): Promise<string | undefined> {
  if (submitted) return submitted
  if (!scope) return undefined
  const connection = await store.connections.forGitHost(scope, host)
  return connection ? await store.connections.token(scope, connection.name) : undefined
}

/** The deploy key and known hosts an SSH repository is read with; undefined for an https one. */
export async function gitSsh(store: Store, cloneUrl: string, host: string, scope: ConnectionScope | undefined): Promise<SshIdentity | undefined> {
  if (!isSshUrl(cloneUrl)) return undefined
  const connection = scope && (await store.connections.forGitHost(scope, host, 'ssh'))
  if (!scope || !connection) {
    throw new LecternError(
      'validation_error',
      `No SSH git connection for ${host}: add one with \`lectern connections add git --name <name> --host ssh://${host} --ssh-key-file <deploy key> --known-hosts-file <file>\`, or use the repository's https:// URL.`,
    )
  }
  return await store.connections.sshIdentity(scope, connection.name)
}

/**
 * In cloud mode (`guard`) a token goes only over https: git sends it as Basic auth, which on a
 * plain `http://` remote anyone on the path reads. On-premise it is sent as asked (README).
 */
export function refuseCleartextToken(cloneUrl: string, token: string | undefined, guard: AddressGuard | undefined): void {
  if (guard && token !== undefined && new URL(cloneUrl).protocol === 'http:') {
    throw new LecternError('validation_error', 'A token is sent only over https: use the https:// URL of the repository.')
  }
}
