/**
 * The cloud-mode guard of a git remote: git only ever connects to addresses checked here.
 * A remote must be http(s): ssh://, git://, file:// and `user@host:path` remotes are refused,
 * since their connections can be neither checked nor pinned. The host is resolved and every
 * address checked (address-guard.ts) before git runs; git is then pinned to exactly those
 * addresses (`http.curloptResolve`) and follows no redirect (`http.followRedirects=false`), so
 * neither a DNS answer that changes between the check and the connection nor a redirect leads it
 * to an address nobody checked. A host fetch.allow names is trusted as it is (not pinned), but
 * still not followed through redirects.
 */
import ipaddr from 'ipaddr.js'
import { LecternError } from '../errors.js'
import { resolveAllowed, type AddressGuard, type Lookup } from './address-guard.js'

/** A git configuration entry, handed to git through GIT_CONFIG_* environment variables. */
export type GitConfigEntry = readonly [key: string, value: string]

export const HTTP_REMOTES_ONLY =
  'In cloud mode repositories are cloned over https (or http) only: ssh://, git://, file:// and user@host:path URLs are refused.'

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' }

/**
 * Checks the remote and returns the git configuration that keeps git on the checked addresses.
 * Throws `validation_error` for a remote that is not http(s), `forbidden` for a private address,
 * `source_unreachable` for a host that does not resolve.
 */
export async function guardGitRemote(cloneUrl: string, guard: AddressGuard, lookup?: Lookup): Promise<GitConfigEntry[]> {
  let url: URL
  try {
    url = new URL(cloneUrl)
  } catch {
    throw new LecternError('validation_error', HTTP_REMOTES_ONLY)
  }
  const port = DEFAULT_PORTS[url.protocol]
  if (port === undefined) throw new LecternError('validation_error', HTTP_REMOTES_ONLY)
  const addresses = await resolveAllowed(url.hostname, guard, `Git access to ${cloneUrl}`, lookup)
  const entries: GitConfigEntry[] = [['http.followRedirects', 'false']]
  // curl connects to an address literal as it is; a name is pinned to what was checked.
  if (addresses !== undefined && !ipaddr.isValid(url.hostname.replace(/^\[|\]$/g, ''))) {
    const pinned = addresses.map((a) => (a.includes(':') ? `[${a}]` : a)).join(',')
    entries.push(['http.curloptResolve', `${url.hostname}:${url.port || port}:${pinned}`])
  }
  return entries
}

/**
 * The guard at submission (add, refresh), so a refused remote is answered at once rather than
 * as a failed job. A name that does not resolve yet is left to the job, which checks again; the
 * answer is then what to tell the submitter (that the job will fail unless it resolves, and how
 * fetch.allow works), undefined otherwise.
 */
export async function admitGitRemote(cloneUrl: string, guard: AddressGuard | undefined, lookup?: Lookup): Promise<string | undefined> {
  if (!guard) return undefined
  try {
    await guardGitRemote(cloneUrl, guard, lookup)
    return undefined
  } catch (err) {
    if (!(err instanceof LecternError && err.code === 'source_unreachable')) throw err
    return `Note: ${err.message.replace(/^.*? failed: /, '')} The job fails unless it resolves when it runs.`
  }
}
