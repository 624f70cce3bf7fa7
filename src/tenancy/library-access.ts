/**
 * On-premise library access control (Context7's enterprise/library-access.mdx, without SSO
 * groups): a library is open to everyone or restricted to named users and their keys; libraries
 * nobody configured follow the workspace default, `access.restrictNewLibraries`. Admins (an
 * admin session, a key of an admin, the CLI) reach everything. A restricted library is closed
 * to everyone else, so it answers exactly as an unknown library does (src/library/visibility.ts
 * settles and applies the rules per request). Here: reading and changing the rules.
 */
import { audit, type AuditContext } from '../audit/log.js'
import { LOCAL, type Caller } from '../library/access.js'
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'
import { unpinned } from '../library/admin.js'
import { findLibrary } from '../search/resolve.js'
import { readSetting } from '../settings.js'
import type { Store } from '../store/index.js'
import type { LibraryAccess, LibraryAccessEntry } from '../store/library-access.js'
import { SETTING_KEYS } from '../store/settings.js'
import { findUser } from './operators.js'

/** Refuses access control in the cloud, where it would not apply: teamspaces and their policies decide there. */
export function requireOnPremise(mode: Mode): void {
  if (mode !== 'onprem') {
    throw new LecternError(
      'forbidden',
      'Library access control is on-premise only, and this data directory runs in cloud mode (`lectern config get mode` says why): in the cloud, teamspaces and their policies decide who reaches a library.',
    )
  }
}

export interface LibraryAccessView {
  /** The workspace default: whether libraries nobody configured are restricted. */
  restrictNewLibraries: boolean
  libraries: Array<Omit<LibraryAccessEntry, 'libraryPk'> & { effective: Exclude<LibraryAccess, 'default'> }>
}

/** Every library's access and grantees, for the operator (CLI, admin session). */
export async function describeLibraryAccess(store: Store): Promise<LibraryAccessView> {
  const restrictNewLibraries = await readSetting(store.settings, 'access.restrictNewLibraries')
  return {
    restrictNewLibraries,
    libraries: (await store.libraryAccess.list()).map(({ libraryPk: _, ...entry }) => ({
      ...entry,
      effective: entry.access === 'default' ? (restrictNewLibraries ? 'restricted' : 'everyone') : entry.access,
    })),
  }
}

/** Who a restricted library is granted to: users by email, and single sign-on groups by name. */
export interface Grantees {
  users?: readonly string[]
  groups?: readonly string[]
}

/**
 * Opens a library to everyone, restricts it to `grantees` (none: admins only), or hands it back
 * to the default, and records who did (the audit log). Unknown users are refused
 * (user_not_found) and nothing changes; a group is any name the provider may send.
 */
export function setLibraryAccess(
  store: Store,
  context: AuditContext,
  rawId: string,
  access: LibraryAccess,
  grantees: Grantees = {},
): Promise<LibraryAccessView['libraries'][number]> {
  return store.transaction(async () => {
    const entry = await applyAccess(store, rawId, access, grantees)
    await audit(store, context, 'access.rule.changed', entry.libraryId, { access: entry.access, users: entry.users.map((u) => u.email), groups: entry.groups })
    return entry
  })
}

async function applyAccess(store: Store, rawId: string, access: LibraryAccess, grantees: Grantees): Promise<LibraryAccessView['libraries'][number]> {
  const { library } = await findLibrary(store.libraries, unpinned(rawId, 'The library'), LOCAL)
  const emails = grantees.users ?? []
  const groups = [...new Set((grantees.groups ?? []).map((group) => group.trim()))]
  if (access !== 'restricted' && emails.length + groups.length > 0) {
    throw new LecternError('validation_error', `Users and groups are granted a restricted library only; ${access === 'everyone' ? 'an open library reaches everyone' : 'the default grants nobody'}.`)
  }
  if (groups.some((group) => group === '')) throw new LecternError('validation_error', 'A group name is empty.')
  const userIds: number[] = []
  for (const email of emails) userIds.push((await findUser(store, email)).id)
  await store.libraryAccess.set(library.pk, access, userIds, groups)
  return (await describeLibraryAccess(store)).libraries.find((l) => l.libraryId === library.id)!
}

/** One library's access and grantees, by ID (a pinned version names its library). */
export async function describeOneLibrary(store: Store, rawId: string): Promise<LibraryAccessView['libraries'][number]> {
  const { library } = await findLibrary(store.libraries, unpinned(rawId, 'The library'), LOCAL)
  return (await describeLibraryAccess(store)).libraries.find((l) => l.libraryId === library.id)!
}

/** Grantees to add and remove: users by email, groups by name. */
export interface GrantChange {
  grant: readonly string[]
  revoke: readonly string[]
  grantGroups?: readonly string[]
  revokeGroups?: readonly string[]
}

/**
 * Adds and removes grantees of a restricted library, keeping the others. A library following a
 * restrictive default becomes restricted with them, which closes it to nobody new; an open one is
 * refused, since granting one user would close it to everyone else.
 */
export function changeGrants(
  store: Store,
  context: AuditContext,
  rawId: string,
  change: GrantChange,
): Promise<LibraryAccessView['libraries'][number]> {
  // One transaction: a grant made meanwhile is read with the others, never dropped.
  return store.transaction(() => changeGrantsNow(store, context, rawId, change))
}

async function changeGrantsNow(
  store: Store,
  context: AuditContext,
  rawId: string,
  change: GrantChange,
): Promise<LibraryAccessView['libraries'][number]> {
  const entry = await describeOneLibrary(store, rawId)
  if (entry.effective === 'everyone') {
    throw new LecternError(
      'validation_error',
      `${entry.libraryId} is open to everyone, so there is nothing to grant: restrict it with \`lectern libraries access ${entry.libraryId} --restrict --user <email>\` (which closes it to everyone else).`,
    )
  }
  const emailOf = async (email: string) => (await findUser(store, email)).email
  const revoked = new Set<string>()
  for (const email of change.revoke) revoked.add(await emailOf(email))
  const granted: string[] = []
  for (const email of change.grant) granted.push(await emailOf(email))
  const emails = new Set([...entry.users.map((u) => u.email), ...granted].filter((email) => !revoked.has(email)))
  const revokedGroups = new Set(change.revokeGroups?.map((group) => group.trim()))
  const groups = new Set([...entry.groups, ...(change.grantGroups ?? [])].filter((group) => !revokedGroups.has(group.trim())))
  return await setLibraryAccess(store, context, entry.libraryId, 'restricted', { users: [...emails], groups: [...groups] })
}

/**
 * What an add's answer says when the new library is closed to the one who added it: otherwise
 * "submitted" reads as done and the library then answers 404. The CLI, an admin, is told who
 * else it is closed to. Undefined when the caller reaches it, and in the cloud.
 */
export async function restrictionNotice(store: Store, mode: Mode, caller: Caller, libraryId: string): Promise<string | undefined> {
  if (mode !== 'onprem') return undefined
  const entry = await describeOneLibrary(store, libraryId)
  if (entry.effective !== 'restricted') return undefined
  const grant = `\`lectern libraries access ${entry.libraryId} --grant <email>\``
  const why = entry.access === 'default' ? 'new libraries are restricted on this install (access.restrictNewLibraries)' : 'it is restricted'
  if (caller.kind === 'local') return `${entry.libraryId} is reached by admins only until you grant users access: ${why}; ${grant}.`
  if (caller.kind === 'anonymous') return `${entry.libraryId} stays unknown to you until an admin grants you access: ${why}.`
  const userId = caller.userId
  const inGroup = async (id: number) => (await store.users.groupsOf(id)).some((group) => entry.groups.includes(group))
  const reaches = userId !== null && (await store.libraryAccess.isAdmin(userId) || entry.users.some((u) => u.userId === userId) || await inGroup(userId))
  if (reaches) return undefined
  return `${entry.libraryId} stays unknown to you (404) until an admin grants you access (${grant}, or Library access in the dashboard's Settings): ${why}.`
}

export function setRestrictNewLibraries(store: Store, context: AuditContext, restrict: boolean): Promise<void> {
  return store.transaction(async () => {
    await store.settings.set(SETTING_KEYS.restrictNewLibraries, restrict)
    await audit(store, context, 'access.default.changed', 'access.restrictNewLibraries', { restrictNewLibraries: restrict })
  })
}
