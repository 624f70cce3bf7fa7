/**
 * Whether a tag exists at a git remote, asked with `git ls-remote` before a version is created
 * or cloned: an unknown tag is refused as `tag_not_found` with the tags the remote has, rather
 * than failing later as an unreadable source.
 */
import { LecternError } from '../errors.js'
import type { AddressGuard } from './address-guard.js'
import { listRemoteTags } from './git.js'
import type { SshIdentity } from './git-ssh.js'

/** How many tags a refusal names: enough to spot the right one, short enough to read. */
export const LISTED_TAGS = 20

export interface RemoteTag {
  cloneUrl: string
  tag: string
  token?: string
  /** The library the tag is asked for, named in the refusal (never the clone URL). */
  libraryId: string
  signal?: AbortSignal
  /** Cloud mode: the remote passes the private-address guard first. */
  guard?: AddressGuard
  /** An SSH remote's deploy key and known hosts. */
  ssh?: SshIdentity
}

export async function requireRemoteTag(request: RemoteTag): Promise<void> {
  const tags = await listRemoteTags(request.cloneUrl, request.token, undefined, { signal: request.signal, guard: request.guard, ssh: request.ssh })
  if (!tags.includes(request.tag)) throw tagNotFound(request.libraryId, request.tag, tags)
}

/** The refusal, naming the newest tags first (by version-aware order of their names). */
export function tagNotFound(libraryId: string, tag: string, tags: string[]): LecternError {
  if (tags.length === 0) return new LecternError('tag_not_found', `Tag "${tag}" does not exist in the repository of ${libraryId}; it has no tags.`)
  const newest = [...tags].sort((a, b) => b.localeCompare(a, 'en', { numeric: true })).slice(0, LISTED_TAGS)
  const more = tags.length > newest.length ? ` (and ${tags.length - newest.length} more)` : ''
  return new LecternError('tag_not_found', `Tag "${tag}" does not exist in the repository of ${libraryId}. Available tags: ${newest.join(', ')}${more}.`)
}
