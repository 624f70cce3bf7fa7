/**
 * May this caller see this library, and ask it? The one place it is decided. Three rules answer
 * parts of it, and they are settled on the caller once per request (`createCallerSettler`), so
 * deciding reads nothing from the database:
 *
 * - Who owns what (access.ts): on-premise every caller of the install sees its private
 *   libraries; in the cloud a teamspace's private library is its keys' and members' alone, and
 *   the install's private ones the operator's.
 * - On-premise library access control (tenancy/library-access.ts): a restricted library is closed
 *   to every caller but admins and the users and groups granted it (`closed`); a library without
 *   a rule of its own follows the longest namespace rule that matches it, or the default.
 * - A teamspace's policy (tenancy/policies.ts), in the cloud: the libraries its keys may ask
 *   (`policy`).
 *
 * A library the caller may not see is `unknown`: answered exactly like one that does not exist,
 * on every path (spec 7.2: "No such library, or no access to it"; `canSeeLibrary`). Asking a
 * library (context, search, MCP's tools) also goes through the policy (`decide`): a library the
 * caller sees but its policy leaves out is `denied`, 403 access_denied on context, left out of
 * search. Managing a library (refresh, versions, metrics) follows what the caller sees alone.
 *
 * A teamspace's key must be settled before it is decided on: one that was not (a path that built
 * its caller another way) is an error, never a key that no policy filters.
 */
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'
import { readSetting } from '../settings.js'
import type { Store } from '../store/index.js'
import type { AccessFacts } from '../store/library-access.js'
import type { LibrariesRepository, Library, LibraryVersion } from '../store/libraries.js'
import { isAllowed, isOpen, type PolicySubject } from '../tenancy/policies.js'
import { isInsider, isInTeam, type Caller } from './access.js'
import { governingNamespace } from './namespace.js'

export type Verdict = 'visible' | 'denied' | 'unknown'

/** Whether the caller may see the library at all: one it may not is answered as unknown. */
export function canSeeLibrary(caller: Caller, library: Pick<Library, 'pk' | 'isPrivate' | 'teamPk'>): boolean {
  if (caller.kind !== 'local' && caller.closed?.has(library.pk)) return false
  if (isInsider(caller)) return true
  if (library.teamPk !== null) return isInTeam(caller, library.teamPk)
  return !library.isPrivate
}

/**
 * The verdict on one library. `subject`: the library as policies see it, asked only when a
 * policy filters the caller.
 */
/**
 * Whether deciding for this caller asks the library's policy subject (a teamspace key whose
 * policy filters libraries): a caller that reads the subject from the store reads it first, only then.
 */
export const asksPolicy = (caller: Caller): boolean => caller.kind === 'api-key' && !caller.insider && caller.teamId !== null && caller.policy !== null

export function decide(caller: Caller, library: Pick<Library, 'pk' | 'isPrivate' | 'teamPk'>, subject: () => PolicySubject, now = Date.now()): Verdict {
  if (!canSeeLibrary(caller, library)) return 'unknown'
  if (caller.kind !== 'api-key' || caller.insider || caller.teamId === null) return 'visible'
  if (caller.policy === undefined) throw new Error("a teamspace key's policy was not settled (createCallerSettler) before deciding what it may ask")
  return caller.policy === null || isAllowed(caller.policy, subject(), now) ? 'visible' : 'denied'
}

/** The answer to context for a library the caller sees and its policy leaves out. */
export const accessDenied = (library: Pick<Library, 'id'>): LecternError =>
  new LecternError('access_denied', `Library ${library.id} is not among the libraries your teamspace's policies allow; a teamspace owner or admin can allow it.`, {}, { blockedLibrary: library.id })

/** A library as policies see it, with its default version (the one freshness is read from). */
export function policySubject(library: Library, defaultVersion: Pick<LibraryVersion, 'currentSet' | 'updatedAt'> | undefined): PolicySubject {
  return {
    id: library.id,
    sourceKind: library.sourceKind,
    sourceUrl: library.sourceUrl,
    isPrivate: library.isPrivate,
    teamPk: library.teamPk,
    trustScore: library.trustScore,
    indexedAt: defaultVersion && defaultVersion.currentSet !== null ? defaultVersion.updatedAt : null,
  }
}

/** The library as policies see it, its default version read from the store. */
export const storedPolicySubject = async (libraries: LibrariesRepository, library: Library): Promise<PolicySubject> => policySubject(library, await libraries.version(library.pk, ''))

/**
 * Settles what the rules say of a request's caller: the libraries closed to it (on-premise) and
 * the policy its requests go through (a teamspace's key, in the cloud). `catalogVersion` is the
 * one the request read once for all its caches (read here when not given); at an unchanged
 * version nothing is read from the database.
 */
export type CallerSettler = (caller: Caller, catalogVersion?: number) => Promise<Caller>

export function createCallerSettler(store: Store, mode: Mode): CallerSettler {
  if (mode === 'cloud') {
    return async (caller, version = store.catalogVersion()) => {
      // Operators (insiders), signed-in users, anonymous callers and keys of the install alone go through no policy.
      if (caller.kind !== 'api-key' || caller.insider || caller.teamId === null) return caller
      const policy = await store.policies.of(caller.teamId, version)
      return { ...caller, policy: policy && !isOpen(policy) ? policy : null }
    }
  }
  return accessControl(store)
}

const NOTHING_CLOSED: ReadonlySet<number> = new Set()

/** The restricted libraries and who is granted each, namespace rules applied. */
interface AccessRules {
  /** Libraries closed to everyone but admins and their grantees. */
  restricted: ReadonlySet<number>
  /** Per user, the libraries granted to them. */
  grants: ReadonlyMap<number, ReadonlySet<number>>
  /** Per single sign-on group, the libraries granted to its members. */
  groupGrants: ReadonlyMap<string, ReadonlySet<number>>
}

/**
 * Applies the rules: a library's own rule decides it; one without follows the longest namespace
 * rule that matches it, with that rule's grantees; one with neither follows the default.
 */
export function accessRules(facts: AccessFacts, restrictByDefault: boolean): AccessRules {
  const grants = new Map([...facts.grants].map(([user, pks]) => [user, new Set(pks)]))
  const groupGrants = new Map([...facts.groupGrants].map(([group, pks]) => [group, new Set(pks)]))
  const namespaces = new Map(facts.namespaces.map((rule) => [rule.namespace, rule]))
  const restricted = new Set<number>()
  for (const library of facts.libraries) {
    const rule = library.access === 'default' ? governingNamespace(library.id, namespaces)?.[1] : undefined
    if (library.access === 'default' && (rule === undefined ? !restrictByDefault : rule.access === 'everyone')) continue
    restricted.add(library.pk)
    for (const user of rule?.users ?? []) grants.set(user.userId, (grants.get(user.userId) ?? new Set()).add(library.pk))
    for (const group of rule?.groups ?? []) groupGrants.set(group, (groupGrants.get(group) ?? new Set()).add(library.pk))
  }
  return { restricted, grants, groupGrants }
}

/**
 * On-premise library access control: admins (an admin session, a key of an admin, the CLI) reach
 * everything; every other caller has the restricted libraries not granted to its user closed.
 * The default, the restricted set and the grants are read once per catalogue version (grants,
 * namespace rules and the default move it too, migrations 0016, 0021 and 0033), and each user's closed set is kept with
 * them, so neither a request nor search queries per library.
 */
function accessControl(store: Store): CallerSettler {
  type Rules = AccessRules & { version: number; closed: Map<number | null, Promise<ReadonlySet<number>>>; admins: Map<number, boolean> }
  let cache: { version: number; rules: Promise<Rules> } | undefined

  /**
   * The rules at `version`, read once however many requests ask meanwhile: on PostgreSQL the read
   * takes a round trip, and requests that share it go on in the order they asked.
   */
  const rulesAt = (version: number): Promise<Rules> => {
    // The version is read before the rules: a change in between moves it, and the next request reloads.
    if (cache?.version !== version) {
      const rules = (async (): Promise<Rules> => {
        const restrictByDefault = await readSetting(store.settings, 'access.restrictNewLibraries')
        return { version, ...accessRules(await store.libraryAccess.facts(), restrictByDefault), closed: new Map(), admins: new Map() }
      })()
      const entry = { version, rules }
      cache = entry
      // A failed read is not kept: the next request reads again.
      rules.catch(() => {
        if (cache === entry) cache = undefined
      })
    }
    return cache.rules
  }

  const closedTo = async (userId: number | null, version: number): Promise<ReadonlySet<number>> => {
    const rules = await rulesAt(version)
    if (rules.restricted.size === 0) return NOTHING_CLOSED
    let closed = rules.closed.get(userId)
    if (!closed) {
      closed = (async () => {
        if (userId === null) return rules.restricted
        // Granted to the user, or to a group the provider named at their last sign-in (a change moves the version, migration 0032).
        const groups = rules.groupGrants.size === 0 ? [] : await store.users.groupsOf(userId)
        const granted = [rules.grants.get(userId), ...groups.map((group) => rules.groupGrants.get(group))]
        return new Set([...rules.restricted].filter((pk) => !granted.some((set) => set?.has(pk))))
      })()
      rules.closed.set(userId, closed)
      closed.catch(() => rules.closed.delete(userId))
    }
    return await closed
  }

  /** Whether a key's user is an admin, read once per catalogue version (a role change moves it, migration 0021). */
  const isAdmin = async (userId: number, version: number): Promise<boolean> => {
    const { admins } = await rulesAt(version)
    let admin = admins.get(userId)
    if (admin === undefined) admins.set(userId, (admin = await store.libraryAccess.isAdmin(userId)))
    return admin
  }

  return async (caller, version = store.catalogVersion()) => {
    switch (caller.kind) {
      case 'local':
        return caller
      case 'anonymous':
        return { ...caller, closed: await closedTo(null, version) }
      case 'session':
        return caller.role === 'admin' ? caller : { ...caller, closed: await closedTo(caller.userId, version) }
      case 'api-key': {
        if (caller.userId === null) return { ...caller, closed: await closedTo(null, version) }
        const closed = await closedTo(caller.userId, version)
        return closed.size === 0 || await isAdmin(caller.userId, version) ? caller : { ...caller, closed }
      }
    }
  }
}
