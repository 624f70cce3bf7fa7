/**
 * The one HTTP client every source fetches through. It guarantees, for every request:
 * a timeout, a cap on the body (checked while streaming, never after buffering), at most
 * `maxRedirects` hops, retries with backoff on 429/5xx and network errors, a clear User-Agent,
 * and, when an address guard is set (cloud mode), no connection to a private, loopback or
 * link-local address: the check runs on the resolved IP of every connection, so neither DNS
 * nor a redirect can lead around it.
 */
import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import zlib from 'node:zlib'
import ipaddr from 'ipaddr.js'
import { LecternError } from '../errors.js'
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

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body)
    case 'deflate':
      return zlib.inflateSync(body)
    case 'br':
      return zlib.brotliDecompressSync(body)
    default:
      return body
  }
}

export class HttpClient {
  private readonly options: Required<Omit<HttpClientOptions, 'guard'>> & Pick<HttpClientOptions, 'guard'>

  constructor(options: HttpClientOptions = {}) {
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

  private once(url: string, options: RequestOptions): Promise<HttpResponse> {
    const maxBytes = options.maxBytes ?? this.options.maxBytes
    const target = new URL(url)
    // Node connects to an IP literal without calling `lookup`, so the guard checks it here.
    const literal = target.hostname.replace(/^\[|\]$/g, '')
    if (this.options.guard && ipaddr.isValid(literal) && !isAllowedAddress(literal, target.hostname, this.options.guard.allow)) {
      return Promise.reject(privateAddressRefusal(`Fetching ${url}`, `${literal} is a private address`))
    }
    const transport = target.protocol === 'https:' ? https : http
    const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(this.options.timeoutMs)]) : AbortSignal.timeout(this.options.timeoutMs)
    return new Promise((resolve, reject) => {
      const request = transport.request(
        target,
        {
          method: options.method ?? 'GET',
          headers: { 'user-agent': this.options.userAgent, 'accept-encoding': 'gzip, deflate, br', ...options.headers },
          signal,
          ...(this.options.guard ? { lookup: guardedLookup(this.options.guard.allow) } : {}),
        },
        (response) => {
          const declared = Number(response.headers['content-length'])
          if (Number.isFinite(declared) && declared > maxBytes) {
            response.destroy()
            return reject(sourceError(url, `the body is ${declared} bytes, over the ${maxBytes}-byte limit`))
          }
          const chunks: Buffer[] = []
          let size = 0
          response.on('data', (chunk: Buffer) => {
            size += chunk.length
            if (size > maxBytes) {
              response.destroy()
              reject(sourceError(url, `the body is over the ${maxBytes}-byte limit`))
              return
            }
            chunks.push(chunk)
          })
          response.on('error', (err) => reject(sourceError(url, err.message, err)))
          response.on('end', () => {
            let body: Buffer
            try {
              body = decode(Buffer.concat(chunks), response.headers['content-encoding'])
            } catch (err) {
              return reject(sourceError(url, 'the body could not be decompressed', err))
            }
            if (body.length > maxBytes) return reject(sourceError(url, `the body is over the ${maxBytes}-byte limit`))
            resolve({
              url,
              status: response.statusCode ?? 0,
              headers: response.headers,
              body,
              text: () => body.toString('utf8'),
              json: <T>() => {
                try {
                  return JSON.parse(body.toString('utf8')) as T
                } catch {
                  throw sourceError(url, 'the body is not valid JSON')
                }
              },
            })
          })
        },
      )
      request.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPRIVATEADDRESS') {
          return reject(privateAddressRefusal(`Fetching ${url}`, err.message))
        }
        if (options.signal?.aborted) return reject(options.signal.reason)
        const why = signal.aborted ? `no answer within ${this.options.timeoutMs} ms` : (err.code ?? err.message)
        const failure = sourceError(url, why)
        retryableErrors.add(failure)
        reject(failure)
      })
      if (options.body !== undefined) request.write(options.body)
      request.end()
    })
  }
}

/** The client for a mode: cloud mode guards against private addresses, with the fetch.allow setting (LECTERN_FETCH_ALLOW) as the exceptions. */
export function createHttpClient(mode: 'onprem' | 'cloud', allow: string[] = [], options: HttpClientOptions = {}): HttpClient {
  return new HttpClient({ ...options, guard: addressGuard(mode, allow) })
}
