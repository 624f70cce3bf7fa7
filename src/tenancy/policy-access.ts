/**
 * Where teamspace policies are enforced: the one check that search (REST and MCP's
 * resolve-library-id) and context (REST and MCP's query-docs) ask, after visibility (access.ts):
 * a library the caller may not see is unknown (404), and only a visible one can be outside the
 * policy (403 access_denied on context, left out of search).
 *
 * Only requests made with a teamspace's API key in cloud mode are filtered: operators (insiders),
 * signed-in users, anonymous callers and keys of the install alone are not.
 */
import type { Caller } from '../library/access.js'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import type { Library, LibraryVersion } from '../store/libraries.js'
import { isAllowed, isOpen, type Policy, type PolicySubject } from './policies.js'

/**
 * The policy the caller's requests go through; undefined when none filters them. `catalogVersion`:
 * the one the request read, against which the policy is kept (PoliciesRepository.of).
 */
export function policyOf(store: Store, caller: Caller, catalogVersion?: number): Policy | undefined {
  if (caller.kind !== 'api-key' || caller.insider || caller.teamId === null) return undefined
  const policy = store.policies.of(caller.teamId, catalogVersion)
  return policy && !isOpen(policy) ? policy : undefined
}

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
export const storedPolicySubject = (store: Store, library: Library): PolicySubject => policySubject(library, store.libraries.version(library.pk, ''))

/** For search: whether a visible library may be listed to the caller. */
export function libraryFilterOf(store: Store, caller: Caller, catalogVersion?: number): (library: Library, versions: readonly LibraryVersion[]) => boolean {
  const policy = policyOf(store, caller, catalogVersion)
  if (!policy) return () => true
  const now = Date.now()
  return (library, versions) => isAllowed(policy, policySubject(library, versions.find((v) => v.tag === '')), now)
}

/**
 * For context: refuses a visible library outside the caller's policy with 403 access_denied.
 * `subject`: the library as policies see it, when the caller already has it (read otherwise).
 */
export function requireAllowedLibrary(
  store: Store,
  caller: Caller,
  library: Library,
  catalogVersion?: number,
  subject: () => PolicySubject = () => storedPolicySubject(store, library),
): void {
  const policy = policyOf(store, caller, catalogVersion)
  if (!policy) return
  if (!isAllowed(policy, subject())) {
    throw new LecternError('access_denied', `Library ${library.id} is not among the libraries your teamspace's policies allow; a teamspace owner or admin can allow it.`)
  }
}
