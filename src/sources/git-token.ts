/**
 * The token a git command sends (as an `http.extraHeader`, see git.ts): the one submitted with the
 * job, else the stored git connection for the repository's host (`lectern connections add git`),
 * so private repositories of a known host need no token on every add. `storedConnections` says
 * whether the library may read through the install's connections (tenancy/stored-connections.ts).
 */
import type { Store } from '../store/index.js'

export function gitToken(store: Store, submitted: string | undefined, host: string, storedConnections: boolean): string | undefined {
  if (submitted) return submitted
  if (!storedConnections) return undefined
  const connection = store.connections.forGitHost(host)
  return connection ? store.connections.token(connection.name) : undefined
}
