/**
 * On-premise library access control (Context7's enterprise/library-access.mdx, without SSO
 * groups): a library is open to everyone or restricted to named users and their keys; libraries
 * nobody configured follow the workspace default, `access.restrictNewLibraries`. Admins (an
 * admin session, a key of an admin, the CLI) reach everything. A restricted library is closed
 * to everyone else, so src/library/access.ts answers for it exactly as for an unknown library.
 *
 * Requests ask `gate` for the libraries closed to their caller: the default, the restricted set
 * and the grants are read once per catalogue version (grants and the default move it too,
 * migrations 0016 and 0021), and each user's closed set is kept with them, so neither a request
 * nor search queries per library.
 */
import { LOCAL, type Caller } from '../library/access.js'
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'
import { unpinned } from '../library/admin.js'
import { findLibrary } from '../search/resolve.js'
import { readSetting } from '../settings.js'
import type { Store } from '../store/index.js'
import type { AccessRules, LibraryAccess, LibraryAccessEntry } from '../store/library-access.js'
import { SETTING_KEYS } from '../store/settings.js'
import { findUser } from './operators.js'

const NOTHING_CLOSED: ReadonlySet<number> = new Set()

/** Refuses access control in the cloud, where it would not apply: teamspaces and their policies decide there. */
export function requireOnPremise(mode: Mode): void {
  if (mode !== 'onprem') {
    throw new LecternError(
      'forbidden',
      'Library access control is on-premise only, and this data directory runs in cloud mode (`lectern config get mode` says why): in the cloud, teamspaces and their policies decide who reaches a library.',
    )
  }
}

/**
 * Settles which libraries are closed to a request's caller; the caller itself otherwise unchanged.
 * `catalogVersion` is the catalogue version the request reads once for all its caches (read here
 * when not given); at an unchanged version the gate reads nothing from the database.
 */
export type LibraryGate = (caller: Caller, catalogVersion?: number) => Caller

export function createLibraryGate(store: Store): LibraryGate {
  type Cache = AccessRules & { version: number; closed: Map<number | null, ReadonlySet<number>>; admins: Map<number, boolean> }
  let cache: Cache | undefined

  const rulesAt = (version: number): Cache => {
    // The version is read before the rules: a change in between moves it, and the next request reloads.
    if (cache?.version !== version) {
      cache = { version, ...store.libraryAccess.rules(readSetting(store.settings, 'access.restrictNewLibraries')), closed: new Map(), admins: new Map() }
    }
    return cache
  }

  const closedTo = (userId: number | null, version: number): ReadonlySet<number> => {
    const rules = rulesAt(version)
    if (rules.restricted.size === 0) return NOTHING_CLOSED
    let closed = rules.closed.get(userId)
    if (!closed) {
      const granted = userId === null ? undefined : rules.grants.get(userId)
      closed = new Set([...rules.restricted].filter((pk) => !granted?.has(pk)))
      rules.closed.set(userId, closed)
    }
    return closed
  }

  /** Whether a key's user is an admin, read once per catalogue version (a role change moves it, migration 0021). */
  const isAdmin = (userId: number, version: number): boolean => {
    const { admins } = rulesAt(version)
    let admin = admins.get(userId)
    if (admin === undefined) admins.set(userId, (admin = store.libraryAccess.isAdmin(userId)))
    return admin
  }

  return (caller, version = store.catalogVersion()) => {
    switch (caller.kind) {
      case 'local':
        return caller
      case 'anonymous':
        return { ...caller, closed: closedTo(null, version) }
      case 'session':
        return caller.role === 'admin' ? caller : { ...caller, closed: closedTo(caller.userId, version) }
      case 'api-key': {
        if (caller.userId === null) return { ...caller, closed: closedTo(null, version) }
        const closed = closedTo(caller.userId, version)
        return closed.size === 0 || isAdmin(caller.userId, version) ? caller : { ...caller, closed }
      }
    }
  }
}

export interface LibraryAccessView {
  /** The workspace default: whether libraries nobody configured are restricted. */
  restrictNewLibraries: boolean
  libraries: Array<Omit<LibraryAccessEntry, 'libraryPk'> & { effective: Exclude<LibraryAccess, 'default'> }>
}

/** Every library's access and grantees, for the operator (CLI, admin session). */
export function describeLibraryAccess(store: Store): LibraryAccessView {
  const restrictNewLibraries = readSetting(store.settings, 'access.restrictNewLibraries')
  return {
    restrictNewLibraries,
    libraries: store.libraryAccess.list().map(({ libraryPk: _, ...entry }) => ({
      ...entry,
      effective: entry.access === 'default' ? (restrictNewLibraries ? 'restricted' : 'everyone') : entry.access,
    })),
  }
}

/**
 * Opens a library to everyone, restricts it to `emails` (none: admins only), or hands it back
 * to the default. Unknown users are refused (user_not_found) and nothing changes.
 */
export function setLibraryAccess(store: Store, rawId: string, access: LibraryAccess, emails: readonly string[] = []): LibraryAccessView['libraries'][number] {
  const { library } = findLibrary(store.libraries, unpinned(rawId, 'The library'), LOCAL)
  if (access !== 'restricted' && emails.length > 0) {
    throw new LecternError('validation_error', `Users are granted a restricted library only; ${access === 'everyone' ? 'an open library reaches everyone' : 'the default grants nobody'}.`)
  }
  const userIds = emails.map((email) => findUser(store, email).id)
  store.libraryAccess.set(library.pk, access, userIds)
  return describeLibraryAccess(store).libraries.find((l) => l.libraryId === library.id)!
}

/** One library's access and grantees, by ID (a pinned version names its library). */
export function describeOneLibrary(store: Store, rawId: string): LibraryAccessView['libraries'][number] {
  const { library } = findLibrary(store.libraries, unpinned(rawId, 'The library'), LOCAL)
  return describeLibraryAccess(store).libraries.find((l) => l.libraryId === library.id)!
}

/**
 * Adds and removes grantees of a restricted library, keeping the others. A library following a
 * restrictive default becomes restricted with them, which closes it to nobody new; an open one is
 * refused, since granting one user would close it to everyone else.
 */
export function changeGrants(store: Store, rawId: string, change: { grant: readonly string[]; revoke: readonly string[] }): LibraryAccessView['libraries'][number] {
  const entry = describeOneLibrary(store, rawId)
  if (entry.effective === 'everyone') {
    throw new LecternError(
      'validation_error',
      `${entry.libraryId} is open to everyone, so there is nothing to grant: restrict it with \`lectern libraries access ${entry.libraryId} --restrict --user <email>\` (which closes it to everyone else).`,
    )
  }
  const revoked = new Set(change.revoke.map((email) => findUser(store, email).email))
  const emails = new Set([...entry.users.map((u) => u.email), ...change.grant.map((email) => findUser(store, email).email)].filter((email) => !revoked.has(email)))
  return setLibraryAccess(store, entry.libraryId, 'restricted', [...emails])
}

/**
 * What an add's answer says when the new library is closed to the one who added it: otherwise
 * "submitted" reads as done and the library then answers 404. The CLI, an admin, is told who
 * else it is closed to. Undefined when the caller reaches it, and in the cloud.
 */
export function restrictionNotice(store: Store, mode: Mode, caller: Caller, libraryId: string): string | undefined {
  if (mode !== 'onprem') return undefined
  const entry = describeOneLibrary(store, libraryId)
  if (entry.effective !== 'restricted') return undefined
  const grant = `\`lectern libraries access ${entry.libraryId} --grant <email>\``
  const why = entry.access === 'default' ? 'new libraries are restricted on this install (access.restrictNewLibraries)' : 'it is restricted'
  if (caller.kind === 'local') return `${entry.libraryId} is reached by admins only until you grant users access: ${why}; ${grant}.`
  if (caller.kind === 'anonymous') return `${entry.libraryId} stays unknown to you until an admin grants you access: ${why}.`
  const userId = caller.userId
  const reaches = userId !== null && (store.libraryAccess.isAdmin(userId) || entry.users.some((u) => u.userId === userId))
  if (reaches) return undefined
  return `${entry.libraryId} stays unknown to you (404) until an admin grants you access (${grant}, or Library access in the dashboard's Settings): ${why}.`
}

export function setRestrictNewLibraries(store: Store, restrict: boolean): void {
  store.settings.set(SETTING_KEYS.restrictNewLibraries, restrict)
}
