/**
 * On-premise library access control (Context7's enterprise/library-access.mdx): a library is open
 * to everyone or restricted to named users and single sign-on groups (and their keys); a
 * namespace rule (`/acme/*`) does the same for every library under it without a rule of its own,
 * the longest namespace winning; libraries nobody configured follow the workspace default,
 * `access.restrictNewLibraries`. Admins (an admin session, a key of an admin, the CLI) reach
 * everything. A restricted library is closed to everyone else, so it answers exactly as an
 * unknown library does (src/library/visibility.ts settles and applies the rules per request).
 * Here: reading and changing the rules.
 */
import { audit, type AuditContext } from '../audit/log.js'
import { LOCAL, type Caller } from '../library/access.js'
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'
import { unpinned } from '../library/admin.js'
import { governingNamespace, isNamespace, parseNamespace } from '../library/namespace.js'
import { findLibrary } from '../search/resolve.js'
import { readSetting } from '../settings.js'
import type { Store } from '../store/index.js'
import type { Grantee, LibraryAccess, LibraryAccessEntry, NamespaceRule } from '../store/library-access.js'
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

type Effective = Exclude<LibraryAccess, 'default'>

/**
 * A library's access as it applies: `access` is its own rule; `namespace` the namespace rule that
 * decides it when it has none; `users` and `groups` the grantees of the rule that decides it.
 */
export type LibraryAccessState = Omit<LibraryAccessEntry, 'libraryPk'> & { effective: Effective; namespace: string | null }

/** A namespace's rule (`default`: it has none), and how many libraries it governs. */
export interface NamespaceAccessState {
  namespace: string
  access: LibraryAccess
  effective: Effective
  users: Grantee[]
  groups: string[]
  libraries: number
}

export interface LibraryAccessView {
  /** The workspace default: whether libraries nobody configured are restricted. */
  restrictNewLibraries: boolean
  namespaces: NamespaceAccessState[]
  libraries: LibraryAccessState[]
}

/** Every library's access and grantees, and every namespace rule, for the operator (CLI, admin session). */
export async function describeLibraryAccess(store: Store): Promise<LibraryAccessView> {
  const restrictNewLibraries = await readSetting(store.settings, 'access.restrictNewLibraries')
  const rules = new Map((await store.libraryAccess.namespaces()).map((rule) => [rule.namespace, rule]))
  const governed = new Map<string, number>()
  const libraries = (await store.libraryAccess.list()).map(({ libraryPk: _, ...entry }): LibraryAccessState => {
    if (entry.access !== 'default') return { ...entry, effective: entry.access, namespace: null }
    const [namespace, rule] = governingNamespace(entry.libraryId, rules) ?? []
    if (namespace === undefined || rule === undefined) return { ...entry, effective: restrictNewLibraries ? 'restricted' : 'everyone', namespace: null }
    governed.set(namespace, (governed.get(namespace) ?? 0) + 1)
    return { ...entry, effective: rule.access, namespace, users: rule.users, groups: rule.groups }
  })
  const namespaces = [...rules.values()].map((rule) => namespaceState(rule, governed.get(rule.namespace) ?? 0))
  return { restrictNewLibraries, namespaces, libraries }
}

const namespaceState = (rule: NamespaceRule, libraries: number): NamespaceAccessState => ({ ...rule, effective: rule.access, libraries })

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
): Promise<LibraryAccessState> {
  return store.transaction(async () => {
    const before = await describeOneLibrary(store, rawId)
    const entry = await applyAccess(store, rawId, access, grantees)
    // A change that changes nothing (the same grantees again) is no event.
    if (sameRule(before, entry)) return entry
    await audit(store, context, 'access.rule.changed', entry.libraryId, { access: entry.access, users: entry.users.map((u) => u.email), groups: entry.groups })
    return entry
  })
}

async function applyAccess(store: Store, rawId: string, access: LibraryAccess, grantees: Grantees): Promise<LibraryAccessState> {
  const { library } = await findLibrary(store.libraries, unpinned(rawId, 'The library'), LOCAL)
  const { userIds, groups } = await granteesOf(store, access, grantees)
  await store.libraryAccess.set(library.pk, access, userIds, groups)
  return (await describeLibraryAccess(store)).libraries.find((l) => l.libraryId === library.id)!
}

/** Grantees checked: given only with `restricted`, groups named, users known (user_not_found otherwise). */
async function granteesOf(store: Store, access: LibraryAccess, grantees: Grantees): Promise<{ userIds: number[]; groups: string[] }> {
  const emails = grantees.users ?? []
  const groups = [...new Set((grantees.groups ?? []).map((group) => group.trim()))]
  if (access !== 'restricted' && emails.length + groups.length > 0) {
    throw new LecternError('validation_error', `Users and groups are granted a restricted library only; ${access === 'everyone' ? 'an open library reaches everyone' : 'the default grants nobody'}.`)
  }
  if (groups.some((group) => group === '')) throw new LecternError('validation_error', 'A group name is empty.')
  const userIds: number[] = []
  for (const email of emails) userIds.push((await findUser(store, email)).id)
  return { userIds, groups }
}

/**
 * Sets the rule of a namespace (`/acme/*`): every library under it without a rule of its own
 * follows it, unless a longer namespace's rule governs the library; `default` removes the rule.
 * Recorded in the audit log like a library's.
 */
export function setNamespaceAccess(store: Store, context: AuditContext, raw: string, access: LibraryAccess, grantees: Grantees = {}): Promise<NamespaceAccessState> {
  const namespace = parseNamespace(raw)
  return store.transaction(async () => {
    const { userIds, groups } = await granteesOf(store, access, grantees)
    const before = await describeNamespace(store, namespace)
    await store.libraryAccess.setNamespace(namespace, access, userIds, groups)
    const state = await describeNamespace(store, namespace)
    if (sameRule(before, state)) return state
    await audit(store, context, 'access.rule.changed', namespace, { access: state.access, users: state.users.map((u) => u.email), groups: state.groups })
    return state
  })
}

/** A namespace's rule, or that it has none (`default`, following the workspace default). */
export async function describeNamespace(store: Store, raw: string): Promise<NamespaceAccessState> {
  const namespace = parseNamespace(raw)
  const view = await describeLibraryAccess(store)
  const rule = view.namespaces.find((n) => n.namespace === namespace)
  if (rule) return rule
  const effective = view.restrictNewLibraries ? 'restricted' : 'everyone'
  return { namespace, access: 'default', effective, users: [], groups: [], libraries: 0 }
}

/** Whether two states of one library or namespace hold the same rule: its access and grantees, in any order. */
const sameRule = (a: AccessState, b: AccessState): boolean => {
  const key = (state: AccessState) => JSON.stringify([state.access, state.users.map((u) => u.email).sort(), [...state.groups].sort()])
  return key(a) === key(b)
}

/** One library's access and grantees, by ID (a pinned version names its library). */
export async function describeOneLibrary(store: Store, rawId: string): Promise<LibraryAccessState> {
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

/** What an access change names: a library, or a namespace (`/acme/*`). */
export type AccessState = LibraryAccessState | NamespaceAccessState

/** The library or namespace a state is of. */
const targetOf = (state: AccessState): string => ('libraryId' in state ? state.libraryId : state.namespace)

/**
 * Adds and removes grantees of a restricted library or namespace (`/acme/*`), keeping the others.
 * One following a restrictive default (or a library a namespace restricts) becomes restricted
 * with them, which closes it to nobody new; an open one is refused, since granting one user would
 * close it to everyone else.
 */
export function changeGrants(store: Store, context: AuditContext, target: string, change: GrantChange): Promise<AccessState> {
  // One transaction: a grant made meanwhile is read with the others, never dropped.
  return store.transaction(() => changeGrantsNow(store, context, target, change))
}

async function changeGrantsNow(store: Store, context: AuditContext, target: string, change: GrantChange): Promise<AccessState> {
  const state: AccessState = isNamespace(target) ? await describeNamespace(store, target) : await describeOneLibrary(store, target)
  const name = targetOf(state)
  if ('libraryId' in state && state.namespace !== null) {
    throw new LecternError(
      'validation_error',
      `${name} follows the namespace rule ${state.namespace}: change the grantees there (\`lectern libraries access '${state.namespace}' --grant <email>\`), or give ${name} a rule of its own with --restrict --user/--group.`,
    )
  }
  if (state.effective === 'everyone') {
    const shown = isNamespace(name) ? `'${name}'` : name
    throw new LecternError(
      'validation_error',
      `${name} is open to everyone, so there is nothing to grant or revoke: restrict it with \`lectern libraries access ${shown} --restrict --user <email>\` (which closes it to everyone else).`,
    )
  }
  const emailOf = async (email: string) => (await findUser(store, email)).email
  const revoked = new Set<string>()
  for (const email of change.revoke) revoked.add(await emailOf(email))
  const granted: string[] = []
  for (const email of change.grant) granted.push(await emailOf(email))
  const revokedGroups = new Set(change.revokeGroups?.map((group) => group.trim()))
  // A revoke that names no grantee is a typo more often than not: refused, lest the operator
  // believe someone lost access who never had it through this rule, or still has it.
  const strangers = [
    ...[...revoked].filter((email) => !state.users.some((u) => u.email === email)),
    ...[...revokedGroups].filter((group) => !state.groups.includes(group)).map((group) => `group ${group}`),
  ]
  if (strangers.length > 0) {
    const grantees = [...state.users.map((u) => u.email), ...state.groups.map((group) => `group ${group}`)]
    throw new LecternError(
      'validation_error',
      `${strangers.join(', ')} ${strangers.length === 1 ? 'is' : 'are'} not among the grantees of ${name} (${grantees.length > 0 ? grantees.join(', ') : 'admins only'}); nothing was changed.`,
    )
  }
  const emails = new Set([...state.users.map((u) => u.email), ...granted].filter((email) => !revoked.has(email)))
  const groups = new Set([...state.groups, ...(change.grantGroups ?? [])].filter((group) => !revokedGroups.has(group.trim())))
  const grantees = { users: [...emails], groups: [...groups] }
  return isNamespace(name) ? await setNamespaceAccess(store, context, name, 'restricted', grantees) : await setLibraryAccess(store, context, name, 'restricted', grantees)
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
  // The CLI (the operator) is told which rule; anyone else only that it is restricted.
  const why =
    entry.access !== 'default'
      ? 'it is restricted'
      : entry.namespace !== null
        ? caller.kind === 'local'
          ? `the namespace rule ${entry.namespace} restricts it`
          : 'it is restricted'
        : 'new libraries are restricted on this install (access.restrictNewLibraries)'
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
