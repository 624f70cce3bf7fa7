/**
 * The cloud-mode private-address guard, the one place that decides whether a source may reach
 * an address: the HTTP client checks every connection with it, git every remote before it runs.
 * Private, loopback, link-local, unique-local, carrier-grade NAT and reserved addresses are
 * refused unless the fetch.allow setting (LECTERN_FETCH_ALLOW) names the host (trusted as it
 * is, whatever it resolves to) or a CIDR that holds the address. On-premise there is no guard:
 * private hosts are the normal case there.
 */
import dns from 'node:dns'
import ipaddr from 'ipaddr.js'
import type { Mode } from '../config.js'
import { LecternError } from '../errors.js'

export interface AddressGuard {
  /** Hosts, and CIDRs of addresses, that may be reached although they are private. */
  allow: string[]
}

/** Resolves a host name to every address it has, as `dns.lookup` with `all: true` does. */
export type Lookup = (host: string) => Promise<Array<{ address: string; family: number }>>

const BLOCKED_RANGES = new Set(['private', 'loopback', 'linkLocal', 'uniqueLocal', 'unspecified', 'broadcast', 'carrierGradeNat', 'reserved'])

const systemLookup: Lookup = (host) => dns.promises.lookup(host, { all: true, verbatim: true })

/** The guard of a mode: on in cloud mode, with fetch.allow as its exceptions; none on-premise. */
export function addressGuard(mode: Mode, allow: string[]): AddressGuard | undefined {
  return mode === 'cloud' ? { allow } : undefined
}

/** Whether fetch.allow names the host itself, which then is trusted whatever it resolves to. */
export function isAllowedHost(host: string, allow: string[]): boolean {
  const name = unbracket(host).toLowerCase()
  return allow.some((entry) => !entry.includes('/') && unbracket(entry).toLowerCase() === name)
}

/** Whether an address (of `host`) may be reached under the allow-list. */
export function isAllowedAddress(address: string, host: string, allow: string[]): boolean {
  if (isAllowedHost(host, allow)) return true
  let ip: ipaddr.IPv4 | ipaddr.IPv6
  try {
    ip = ipaddr.process(address)
  } catch {
    return false
  }
  for (const entry of allow) {
    if (!entry.includes('/')) continue
    try {
      const [range, bits] = ipaddr.parseCIDR(entry)
      if (range.kind() === ip.kind() && ip.match([range, bits] as never)) return true
    } catch {
      // An allow-list entry that is not a CIDR names a host; it was compared above.
    }
  }
  return !BLOCKED_RANGES.has(ip.range())
}

/**
 * What a host that does not resolve from the server may be, and how it becomes reachable: a host
 * of a private network (split DNS, a VPN) is resolved and reached only when the operator names it.
 */
export const FETCH_ALLOW_HINT =
  'If it is a host of your own network that this server resolves only by another name or not at all, the operator names it in fetch.allow (LECTERN_FETCH_ALLOW), which lets Lectern reach that host as it is.'

/** The refusal of a request to a private address, naming the setting that would allow it. */
export function privateAddressRefusal(action: string, reason: string): LecternError {
  return new LecternError('forbidden', `${action} refused: ${reason}; an administrator can allow it with LECTERN_FETCH_ALLOW.`)
}

/**
 * Resolves `host` and checks every address it has. Returns the addresses, all allowed, for the
 * caller to connect to (and only to); undefined when fetch.allow names the host, which is then
 * resolved by whoever connects. Throws `forbidden` when any address is private, and
 * `source_unreachable` when the name does not resolve.
 */
export async function resolveAllowed(host: string, guard: AddressGuard, action: string, lookup: Lookup = systemLookup): Promise<string[] | undefined> {
  if (isAllowedHost(host, guard.allow)) return undefined
  const name = unbracket(host)
  let addresses: Array<{ address: string }>
  try {
    addresses = ipaddr.isValid(name) ? [{ address: name }] : await lookup(name)
  } catch (err) {
    throw new LecternError('source_unreachable', `${action} failed: ${name} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'}). ${FETCH_ALLOW_HINT}`)
  }
  if (addresses.length === 0) throw new LecternError('source_unreachable', `${action} failed: ${name} has no address.`)
  const refused = addresses.find((a) => !isAllowedAddress(a.address, name, guard.allow))
  if (refused) {
    throw privateAddressRefusal(action, refused.address === name ? `${name} is a private address` : `${name} resolves to ${refused.address}, a private address`)
  }
  return addresses.map((a) => a.address)
}

/**
 * The guard where something is stored for later (a connection): a private address is refused at
 * once; a name that does not resolve yet is accepted, as an add of such a repository is
 * (git-guard.ts admitGitRemote), and the job reading through it checks again.
 */
export async function admitHost(host: string, guard: AddressGuard, action: string): Promise<void> {
  try {
    await resolveAllowed(host, guard, action)
  } catch (err) {
    if (!(err instanceof LecternError && err.code === 'source_unreachable')) throw err
  }
}

function unbracket(host: string): string {
  return host.replace(/^\[|\]$/g, '')
}
