/**
 * Which forward proxy an outbound request goes through, decided once for every outbound path
 * (sources, embedders, S3 backups, Chromium) from the variables curl and most tools read:
 * - `https_proxy` / `HTTPS_PROXY` for https:// URLs, `http_proxy` / `HTTP_PROXY` for http://
 *   URLs; the lower-case name is read first, an empty value counts as unset;
 * - `no_proxy` / `NO_PROXY`: entries separated by commas or spaces, each a host or IP address
 *   (which also covers its subdomains), a suffix (`.corp.example`, `*.corp.example`), either one
 *   with `:port` to bypass that port only, or `*` for every host. Loopback is not bypassed unless
 *   listed, so `localhost,127.0.0.1` belongs there for a local Ollama.
 * Credentials in a proxy URL go to the proxy only; describeProxy() is the form logs and
 * messages show.
 */
import ipaddr from 'ipaddr.js'
import { LecternError } from '../errors.js'

interface NoProxyRule {
  /** Lower case, without brackets around an IPv6 address or a leading `.`/`*.`. */
  host: string
  port?: number
}

export interface ProxySettings {
  http?: URL
  https?: URL
  /** `*`: no request goes through a proxy. */
  bypassAll: boolean
  noProxy: NoProxyRule[]
}

export type ProxyEnv = Record<string, string | undefined>

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 }

function variable(env: ProxyEnv, name: string): { name: string; value: string } | undefined {
  for (const key of [name.toLowerCase(), name.toUpperCase()]) {
    const value = env[key]?.trim()
    if (value) return { name: key, value }
  }
  return undefined
}

/** The proxy URL a variable names; `proxy.corp:3128` means http://proxy.corp:3128. */
function proxyUrl(env: ProxyEnv, name: string): URL | undefined {
  const found = variable(env, name)
  if (!found) return undefined
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) ? found.value : `http://${found.value}`
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new LecternError('validation_error', `${found.name} is not a proxy URL such as http://proxy.corp:3128.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LecternError('validation_error', `${found.name} names a ${url.protocol} proxy (${describeProxy(url)}); Lectern speaks to http:// and https:// proxies.`)
  }
  return url
}

const bare = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1')

function parseNoProxy(text: string): NoProxyRule[] {
  const rules: NoProxyRule[] = []
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    // `[::1]:8080`, `host:8080`; a bare IPv6 address has several colons and no port.
    const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? (entry.split(':').length === 2 ? /^(.+):(\d+)$/.exec(entry) : null)
    const host = (match ? match[1] : entry).replace(/^\*?\./, '')
    rules.push({ host: bare(host), ...(match?.[2] ? { port: Number(match[2]) } : {}) })
  }
  return rules
}

/** The settings of an environment (by default this process's); a proxy URL that is not one is refused. */
export function readProxySettings(env: ProxyEnv = process.env): ProxySettings {
  const noProxy = variable(env, 'no_proxy')?.value ?? ''
  return {
    http: proxyUrl(env, 'http_proxy'),
    https: proxyUrl(env, 'https_proxy'),
    bypassAll: noProxy === '*',
    noProxy: noProxy === '*' ? [] : parseNoProxy(noProxy),
  }
}

/** Whether any request may go through a proxy under these settings. */
export function hasProxy(settings: ProxySettings): boolean {
  return !settings.bypassAll && (settings.http !== undefined || settings.https !== undefined)
}

/** The proxy for a URL, or undefined to connect directly. */
export function proxyFor(target: URL | string, settings: ProxySettings): URL | undefined {
  const url = typeof target === 'string' ? new URL(target) : target
  const proxy = url.protocol === 'https:' ? settings.https : url.protocol === 'http:' ? settings.http : undefined
  if (!proxy || settings.bypassAll) return undefined
  const host = bare(url.hostname)
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol]
  const bypassed = settings.noProxy.some((rule) => (rule.port === undefined || rule.port === port) && (host === rule.host || host.endsWith(`.${rule.host}`)))
  return bypassed ? undefined : proxy
}

/** A proxy URL as logs and messages show it: the user and password masked. */
export function describeProxy(proxy: URL): string {
  return `${proxy.protocol}//${proxy.username || proxy.password ? '***@' : ''}${proxy.host}`
}

export interface ChromiumProxy {
  /** --proxy-server and --proxy-bypass-list, per URL scheme. */
  args: string[]
  /** The proxy's user and password, for Playwright to answer its 407 challenge; Chromium takes none in a flag. */
  credentials?: { server: string; username: string; password: string }
}

/**
 * The same decision in Chromium's terms. `<-loopback>` comes first because Chromium bypasses
 * loopback by itself, and here only NO_PROXY decides; each NO_PROXY host becomes the host and
 * its subdomains, as proxyFor() matches them (an IP address only itself).
 */
export function chromiumProxy(settings: ProxySettings): ChromiumProxy | undefined {
  if (!hasProxy(settings)) return undefined
  const servers = (['http', 'https'] as const).flatMap((scheme) => (settings[scheme] ? [`${scheme}=${settings[scheme]!.protocol}//${settings[scheme]!.host}`] : []))
  const bypass = ['<-loopback>']
  for (const rule of settings.noProxy) {
    const port = rule.port === undefined ? '' : `:${rule.port}`
    if (ipaddr.isValid(rule.host)) bypass.push(`${rule.host.includes(':') ? `[${rule.host}]` : rule.host}${port}`)
    else bypass.push(`${rule.host}${port}`, `*.${rule.host}${port}`)
  }
  const withCredentials = [settings.https, settings.http].find((proxy) => proxy && (proxy.username || proxy.password))
  return {
    args: [`--proxy-server=${servers.join(';')}`, `--proxy-bypass-list=${bypass.join(';')}`],
    ...(withCredentials
      ? {
          credentials: {
            server: `${withCredentials.protocol}//${withCredentials.host}`,
            username: decodeURIComponent(withCredentials.username),
            password: decodeURIComponent(withCredentials.password),
          },
        }
      : {}),
  }
}
