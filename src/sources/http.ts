/**
 * The one HTTP client every source fetches through. It guarantees, for every request:
 * a timeout, a cap on the body (checked while streaming, never after buffering, on the bytes
 * received and on the bytes a Content-Encoding inflates them to), at most `maxRedirects` hops,
 * retries with backoff on 429/5xx and network errors, a clear User-Agent, the outbound proxy of
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY (src/net/proxy.ts), and, when an address guard is set
 * (cloud mode), no request to a private, loopback or link-local address. Without a proxy the
 * guard checks the resolved IP of every connection, so neither DNS nor a redirect can lead
 * around it. Through a proxy the proxy resolves the name: the guard then resolves it first and
 * refuses the request if any address is private, but a name that resolves differently for the
 * proxy a moment later (DNS rebinding) is for the proxy's own egress rules to stop.
 */
import dns from 'node:dns'
import type http from 'node:http'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import { request as undiciRequest } from 'undici'
import { LecternError } from '../errors.js'
import { BodyDecodeError, BodyTooLargeError, readBody } from '../net/body.js'
import { OutboundDispatcher } from '../net/outbound.js'
import { describeProxy, proxyFor, readProxySettings, type ProxySettings } from '../net/proxy.js'
import { addressGuard, isAllowedAddress, privateAddressRefusal, type AddressGuard } from './address-guard.js'
import { parseSourceUrl } from './source-url.js'

export const USER_AGENT = 'Lectern/0.1 (self-hosted documentation indexer)'

export interface HttpClientOptions {
  userAgent?: string
  timeoutMs?: number
  maxBytes?: number
  maxRedirects?: number
  retries?: number
  /** Base of the exponential backoff between retries. */
  retryBaseMs?: number
  /** Refuse private, loopback and link-local addresses, except hosts or CIDRs listed here. */
  guard?: AddressGuard
  /** The outbound proxy; by default this process's HTTPS_PROXY, HTTP_PROXY and NO_PROXY. */
  proxy?: ProxySettings
}

export interface RequestOptions {
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  maxBytes?: number
  signal?: AbortSignal
}

export interface HttpResponse {
  /** The final URL, after redirects. */
  url: string
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
  text(): string
  json<T = unknown>(): T
}

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504])
/** Transport failures (refused, reset, timed out) worth another attempt; kept apart from the error body. */
const retryableErrors = new WeakSet<object>()

function sourceError(url: string, why: string, cause?: unknown): LecternError {
  return new LecternError('source_unreachable', `Fetching ${url} failed: ${why}`, {}, cause === undefined ? undefined : { cause })
}

function guardedLookup(allow: string[]): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0)
      const list = addresses as dns.LookupAddress[]
      const refused = list.find((a) => !isAllowedAddress(a.address, hostname, allow))
      if (refused) {
        const error = Object.assign(new Error(`${hostname} resolves to ${refused.address}, a private address`), { code: 'EPRIVATEADDRESS' })
        return callback(error, '', 0)
      }
      if ((options as { all?: boolean }).all) return callback(null, list as never)
      return callback(null, list[0].address, list[0].family)
    })
  }
}

export class HttpClient {
  private readonly options: Required<Omit<HttpClientOptions, 'guard' | 'proxy'>> & Pick<HttpClientOptions, 'guard'>
  private readonly proxy: ProxySettings
  private readonly dispatcher: OutboundDispatcher

  constructor(options: HttpClientOptions = {}) {
    this.proxy = options.proxy ?? readProxySettings()
    this.dispatcher = new OutboundDispatcher(this.proxy, options.guard ? { lookup: guardedLookup(options.guard.allow) } : undefined)
    this.options = {
      userAgent: options.userAgent ?? USER_AGENT,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxBytes: options.maxBytes ?? 10 * 1024 * 1024,
      maxRedirects: options.maxRedirects ?? 5,
      retries: options.retries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 500,
      guard: options.guard,
    }
  }

  /** Whether private addresses are refused (cloud mode). */
  get guarded(): boolean {
    return this.options.guard !== undefined
  }

  /** GETs (or POSTs) a URL, following redirects; any status is returned, only transport failures throw. */
  async request(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
    let current = this.checkUrl(url)
    for (let hop = 0; ; hop++) {
      const response = await this.withRetries(current, options)
      const location = response.headers.location
      if (response.status >= 300 && response.status < 400 && location) {
        if (hop >= this.options.maxRedirects) throw sourceError(url, `more than ${this.options.maxRedirects} redirects`)
        current = this.checkUrl(new URL(location, current).toString())
        continue
      }
      return response
    }
  }

  /** Like request(), but a status other than 2xx is an error naming it. */
  async get(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const response = await this.request(url, options)
    if (response.status < 200 || response.status >= 300) {
      throw sourceError(url, `the server answered ${response.status}`)
    }
    return response
  }

  private checkUrl(url: string): string {
    return parseSourceUrl(url, 'A URL to fetch').toString()
  }

  private async withRetries(url: string, options: RequestOptions): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.once(url, options)
        if (!RETRYABLE.has(response.status) || attempt >= this.options.retries) return response
        await this.backoff(attempt, response.headers['retry-after'], options.signal)
      } catch (err) {
        if (!retryableErrors.has(err as object) || attempt >= this.options.retries) throw err
        await this.backoff(attempt, undefined, options.signal)
      }
    }
  }

  private async backoff(attempt: number, retryAfter: string | undefined, signal?: AbortSignal): Promise<void> {
    const seconds = Number(retryAfter)
    const ms = Number.isFinite(seconds) && retryAfter !== undefined ? Math.min(seconds * 1000, 30_000) : this.options.retryBaseMs * 2 ** attempt
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms)
      signal?.addEventListener('abort', () => {
        clearTimeout(timer)
        reject(signal.reason)
      }, { once: true })
    })
  }

  private async once(url: string, options: RequestOptions): Promise<HttpResponse> {
    const maxBytes = options.maxBytes ?? this.options.maxBytes
    const target = new URL(url)
    const proxy = proxyFor(target, this.proxy)
    if (this.options.guard) await this.checkTarget(target, url, proxy !== undefined, this.options.guard.allow)
    const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(this.options.timeoutMs)]) : AbortSignal.timeout(this.options.timeoutMs)
    try {
      const response = await undiciRequest(target, {
        dispatcher: this.dispatcher,
        method: options.method ?? 'GET',
        headers: { 'user-agent': this.options.userAgent, 'accept-encoding': 'gzip, deflate, br', ...options.headers },
        body: options.body,
        signal,
      })
      const headers = response.headers as http.IncomingHttpHeaders
      const declared = Number(headers['content-length'])
      if (Number.isFinite(declared) && declared > maxBytes) {
        // Destroying the body aborts the transfer, which it reports as an error of its own.
        response.body.once('error', () => {}).destroy()
        throw sourceError(url, `the body is ${declared} bytes, over the ${maxBytes}-byte limit`)
      }
      const encoding = headers['content-encoding']
      const body = await readBody(response.body, encoding, maxBytes).catch((err: unknown) => {
        if (err instanceof BodyTooLargeError) throw sourceError(url, err.inflated ? `${err.message} (Content-Encoding: ${encoding})` : err.message)
        if (err instanceof BodyDecodeError) throw sourceError(url, err.message, err.cause)
        throw err
      })
      return {
        url,
        status: response.statusCode,
        headers,
        body,
        text: () => body.toString('utf8'),
        json: <T>() => {
          try {
            return JSON.parse(body.toString('utf8')) as T
          } catch {
            throw sourceError(url, 'the body is not valid JSON')
          }
        },
      }
    } catch (err) {
      if (err instanceof LecternError) throw err
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'EPRIVATEADDRESS') throw privateAddressRefusal(`Fetching ${url}`, (err as Error).message)
      if (options.signal?.aborted) throw options.signal.reason
      const reason = signal.aborted ? `no answer within ${this.options.timeoutMs} ms` : code && !code.startsWith('UND_ERR') ? code : (err as Error).message
      const failure = sourceError(url, proxy ? `${reason} (through the proxy ${describeProxy(proxy)})` : reason)
      retryableErrors.add(failure)
      throw failure
    }
  }

  /**
   * The guard's checks before a request: an IP literal here (Node connects to one without a
   * lookup), and a host name reached through a proxy, which the proxy resolves, by resolving it
   * here first. Direct connections are checked again on the address they connect to.
   */
  private async checkTarget(target: URL, url: string, proxied: boolean, allow: string[]): Promise<void> {
    const literal = target.hostname.replace(/^\[|\]$/g, '')
    if (ipaddr.isValid(literal)) {
      if (!isAllowedAddress(literal, target.hostname, allow)) throw privateAddressRefusal(`Fetching ${url}`, `${literal} is a private address`)
      return
    }
    if (!proxied) return
    let addresses: dns.LookupAddress[]
    try {
      addresses = await dns.promises.lookup(target.hostname, { all: true })
    } catch (err) {
      throw sourceError(url, `${target.hostname} cannot be resolved here (${(err as NodeJS.ErrnoException).code ?? 'no address'}); in cloud mode a host is resolved and checked before the proxy is asked`)
    }
    const blocked = addresses.find((a) => !isAllowedAddress(a.address, target.hostname, allow))
    if (blocked) throw privateAddressRefusal(`Fetching ${url}`, `${target.hostname} resolves to ${blocked.address}, a private address`)
  }
}

/** The client for a mode: cloud mode guards against private addresses, with the fetch.allow setting (LECTERN_FETCH_ALLOW) as the exceptions. */
export function createHttpClient(mode: 'onprem' | 'cloud', allow: string[] = [], options: HttpClientOptions = {}): HttpClient {
  return new HttpClient({ ...options, guard: addressGuard(mode, allow) })
}
