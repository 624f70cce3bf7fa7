/**
 * Which names and origins this install answers, against DNS rebinding: a web page on
 * `evil.example`, whose name is made to resolve to 127.0.0.1 or a private address, is the same
 * origin as the server in the browser's eyes, so it could read the anonymous API and `/mcp`
 * from a victim's browser. Its requests name `evil.example` in `Host` (and `Origin`), which no
 * client of the install uses. The MCP transport specification requires servers to check Origin.
 *
 * - Host: on-premise, when the server listens on loopback, a private address or all addresses,
 *   a request must name the install by an IP address (rebinding needs a name), `localhost` (or a
 *   `.localhost` name), the machine's host name, the host of mail.publicUrl, or an entry of
 *   server.allowedHosts. A server on a public address, and the cloud edition, are reached by
 *   whatever name their DNS gives them and are not rebinding targets.
 * - Origin: a request that names one (browsers do on cross-origin and state-changing requests)
 *   must come from a page of the server itself, or of a host listed in server.allowedHosts.
 *   Stock MCP clients and scripts send no Origin and are not affected.
 *
 * An entry of server.allowedHosts is a host name (`docs.example.com`), a wildcard for the names
 * under a domain (`*.example.com`), or an IP address.
 */
import os from 'node:os'
import ipaddr from 'ipaddr.js'
import type { LecternConfig } from '../config.js'

export interface HostPolicy {
  /** Why a request naming `host` (the Host header, port included) is refused; undefined when it is allowed. */
  hostRefusal(host: string): string | undefined
  /** Why a request from `origin` to `requestOrigin` (scheme://host[:port] as it arrived) is refused; undefined when allowed. */
  originRefusal(origin: string, requestOrigin: string): string | undefined
}

/** Addresses a rebinding page can reach from a victim's browser; a public one it reaches anyway. */
function listensPrivately(bind: string): boolean {
  if (!ipaddr.isValid(bind)) return true
  const range = ipaddr.process(bind).range()
  return ['loopback', 'private', 'linkLocal', 'uniqueLocal', 'unspecified', 'carrierGradeNat'].includes(range)
}

/** The name of a Host header or URL host, lower case, without port or IPv6 brackets. */
function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '').toLowerCase()
  } catch {
    return undefined
  }
}

function matches(entry: string, hostname: string): boolean {
  const pattern = entry.trim().toLowerCase()
  if (pattern.startsWith('*.')) return hostname.endsWith(pattern.slice(1)) && hostname.length > pattern.length - 1
  return (hostnameOf(pattern) ?? pattern) === hostname
}

/** The origin of a URL; undefined for one that does not parse (`null`, a request with no or a broken Host). */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

/**
 * Whether a page of `origin` is the server at `requestOrigin` (scheme://host[:port] as the request
 * arrived): scheme, host and port compared as browsers compare origins (a default port dropped),
 * so https://host:PORT is another site than the plain-http server on that port.
 */
export function isSameOrigin(origin: string, requestOrigin: string): boolean {
  const page = originOf(origin)
  return page !== undefined && page === originOf(requestOrigin)
}

export function hostPolicy(config: LecternConfig, machineName = os.hostname()): HostPolicy {
  const listed = config.server.allowedHosts
  const publicHost = config.mail.publicUrl ? new URL(config.mail.publicUrl).hostname.toLowerCase() : undefined
  const checkHost = config.mode === 'onprem' && listensPrivately(config.server.host)
  const isInstallName = (hostname: string) =>
    ipaddr.isValid(hostname) ||
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === machineName.toLowerCase() ||
    hostname === publicHost ||
    listed.some((entry) => matches(entry, hostname))
  return {
    hostRefusal(host) {
      if (!checkHost || host === '') return undefined
      const hostname = hostnameOf(host)
      if (hostname !== undefined && isInstallName(hostname)) return undefined
      return `This server does not answer to the name "${hostname ?? host}"; if it is one of its names, add it to server.allowedHosts (LECTERN_ALLOWED_HOSTS) on the server.`
    },
    originRefusal(origin, requestOrigin) {
      const refusal = `Refused: this request came from a page of another site (${origin}); if that site may call this server, add its host to server.allowedHosts (LECTERN_ALLOWED_HOSTS) on the server.`
      let url: URL
      try {
        url = new URL(origin)
      } catch {
        // `Origin: null`: a sandboxed frame or a file: page, no site of ours.
        return refusal
      }
      if (isSameOrigin(origin, requestOrigin)) return undefined
      const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
      return listed.some((entry) => matches(entry, hostname)) ? undefined : refusal
    },
  }
}
