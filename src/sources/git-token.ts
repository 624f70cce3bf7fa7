/**
 * The token a git command sends (as an `http.extraHeader`, see git.ts): the one submitted with the
 * job, else the stored git connection for the repository's host (`lectern connections add git`),
 * so private repositories of a known host need no token on every add. `scope` says whose
 * connections the library reads through, if any (tenancy/stored-connections.ts).
 */
import { LecternError } from '../errors.js'
import type { ConnectionScope } from '../store/connections.js'
import type { Store } from '../store/index.js'
import type { AddressGuard } from './address-guard.js'

export async function gitToken(store: Store, submitted: string | undefined, host: string, scope: ConnectionScope | undefined): Promise<string | undefined> {
  if (submitted) return submitted
  if (!scope) return undefined
  const connection = await store.connections.forGitHost(scope, host)
  return connection ? await store.connections.token(scope, connection.name) : undefined
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
