/**
 * The token a git command sends (as an `http.extraHeader`, see git.ts): the one submitted with the
 * job, else the stored git connection for the repository's host (`lectern connections add git`),
 * so private repositories of a known host need no token on every add.
 */
import type { Store } from '../store/index.js'

export function gitToken(store: Store, submitted: string | undefined, host: string): string | undefined {
  if (submitted) return submitted
  const connection = store.connections.forGitHost(host)
  return connection ? store.connections.token(connection.name) : undefined
}
