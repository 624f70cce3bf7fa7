/**
 * The shape of a policy list entry (blocked, excepted, allowed libraries): a library path (`/org`
 * or `/org/repo`) or a domain. Shared by the server, which refuses anything else, and the
 * dashboard, which refuses it at "Add" before any request.
 */
const LIBRARY_PATH = /^\/[a-z0-9_][a-z0-9._-]{0,99}(\/[a-z0-9_][a-z0-9._-]{0,99})?$/
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/

/** The entry as stored (trimmed, lower case), or undefined when it is neither shape. */
export function policyEntry(raw: string): string | undefined {
  const entry = raw.trim().toLowerCase()
  return LIBRARY_PATH.test(entry) || DOMAIN.test(entry) ? entry : undefined
}
