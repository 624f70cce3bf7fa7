/**
 * Namespaces of library IDs, for access rules that govern every library under a path (on-premise,
 * Context7's "namespace access rules"): `/acme/*` governs every library whose ID begins `/acme/`;
 * `/acme/payments/*` governs /acme/payments, whose pinned versions are the library's own. Among
 * the namespaces that match a library the longest governs it, and a rule on the library itself
 * wins over them all (src/store/library-access.ts applies it).
 */
import { LecternError } from '../errors.js'
import { isSegment } from './id.js'

/** Whether a target is meant as a namespace (`/acme/*`) rather than a library: a `*` is in no library ID. */
export const isNamespace = (raw: string): boolean => raw.includes('*')

/**
 * A namespace as stored: lowercase like library IDs, `/owner/*` or `/owner/name/*`. Anything
 * else is refused with what would be accepted.
 */
export function parseNamespace(raw: string): string {
  const trimmed = raw.trim().toLowerCase()
  const segments = (trimmed.startsWith('/') ? trimmed.slice(1) : trimmed).split('/')
  const star = segments.pop()
  const shown = raw.length > 80 ? `${raw.slice(0, 80)}...` : raw
  if (star !== '*' || segments.length === 0 || segments.length > 2 || !segments.every(isSegment)) {
    const why = /^\/?\*$/.test(trimmed)
      ? 'every library is governed by the workspace default (access.restrictNewLibraries), not by a namespace'
      : 'a namespace is a library ID\'s owner, or owner and name, followed by "/*" (a single * at the end)'
    throw new LecternError('validation_error', `Invalid namespace "${shown}": ${why}. Expected /owner/* or /owner/name/*, e.g. /acme/*.`)
  }
  return `/${segments.join('/')}/*`
}

/** The namespaces that match a library ID, longest first: `/acme/payments/*`, then `/acme/*`. */
export function namespacesOf(libraryId: string): string[] {
  const segments = libraryId.split('/').filter(Boolean)
  return segments.map((_, i) => `/${segments.slice(0, segments.length - i).join('/')}/*`)
}

/** The rule that governs a library among namespace rules, when one matches: the longest. */
export function governingNamespace<Rule>(libraryId: string, rules: ReadonlyMap<string, Rule>): [string, Rule] | undefined {
  for (const namespace of namespacesOf(libraryId)) {
    const rule = rules.get(namespace)
    if (rule !== undefined) return [namespace, rule]
  }
  return undefined
}
