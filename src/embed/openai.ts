import { setTimeout as delay } from 'node:timers/promises'
import { LecternError, validationError } from '../errors.js'
import { batches, embeddingFetch, networkReason, PROBE_TEXT, redactUrls, rejectCredentials, resolveBatchSize, toVector } from './remote.js'
import type { Embedder, EmbedderSettings } from './types.js'

/** Knobs that settings do not expose; tests shorten them. */
export interface OpenAiOptions {
  /** Per request, including reading the body (default 60 s). */
  timeoutMs?: number
  /** Retries after a 429 or 5xx (default 3). */
  retries?: number
  /** First backoff when the server sends no Retry-After; doubles per retry (default 500 ms). */
  retryBaseMs?: number
  /** Cap on any wait, so a server asking for an hour cannot stall ingestion (default 30 s). */
  maxRetryDelayMs?: number
}

const MAX_ERROR_DETAIL = 300

type Attempt = { vectors: unknown[] } | { retryAfterMs: number; status: number; detail: string }

/**
 * Embeds through any OpenAI-compatible `POST /v1/embeddings` (vLLM, TEI, LocalAI, OpenAI).
 * The host may be given with or without its `/v1` suffix.
 */
export class OpenAiEmbedder implements Embedder {
  readonly provider = 'openai'
  readonly model: string
  readonly host: string
  private readonly url: string
  private readonly apiKey: string | undefined
  private readonly batchSize: number
  private readonly timeoutMs: number
  private readonly retries: number
  private readonly retryBaseMs: number
  private readonly maxRetryDelayMs: number
  private readonly fetch = embeddingFetch(() => this.source())
  private dims: number | undefined

  constructor(settings: Pick<EmbedderSettings, 'model' | 'host' | 'apiKey' | 'batchSize'>, options: OpenAiOptions = {}) {
    if (!settings.host) {
      throw validationError('The openai embedder needs a host, e.g. http://127.0.0.1:8080 for a local vLLM or TEI.')
    }
    if (!settings.model) {
      throw validationError(`The openai embedder needs a model name for ${redactUrls(settings.host)}.`)
    }
    rejectCredentials(settings.host, 'openai')
    this.host = settings.host
    this.url = embeddingsUrl(settings.host)
    this.model = settings.model
    this.apiKey = settings.apiKey || undefined
    this.batchSize = resolveBatchSize(settings.batchSize)
    this.timeoutMs = options.timeoutMs ?? 60_000
    this.retries = options.retries ?? 3
    this.retryBaseMs = options.retryBaseMs ?? 500
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000
  }

  async dimensions(): Promise<number> {
    if (this.dims === undefined) await this.embed([PROBE_TEXT])
    return this.dims as number
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted()
    const vectors: Float32Array[] = []
    for (const batch of batches(texts, this.batchSize)) {
      for (const raw of await this.embedBatch(batch, signal)) vectors.push(this.check(raw))
    }
    return vectors
  }

  private async embedBatch(batch: string[], signal: AbortSignal | undefined): Promise<unknown[]> {
    for (let retry = 0; ; retry++) {
      const attempt = await this.attempt(batch, retry, signal)
      if ('vectors' in attempt) return attempt.vectors
      if (retry >= this.retries) {
        throw new LecternError(
          'internal_error',
          `${this.source()} failed with HTTP ${attempt.status} after ${retry + 1} attempts: ${attempt.detail}`,
        )
      }
      await sleep(attempt.retryAfterMs, signal)
    }
  }

  /** One request; the timeout covers reading the body too, since a server can stall mid-stream. */
  private async attempt(batch: string[], retry: number, signal: AbortSignal | undefined): Promise<Attempt> {
    const timeout = AbortSignal.timeout(this.timeoutMs)
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout
    try {
      const response = await this.fetch(this.url, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify({ model: this.model, input: batch }),
        signal: combined,
      })
      if (response.ok) return { vectors: orderedEmbeddings(await response.json(), batch.length, this.source()) }
      const detail = this.scrub(await errorDetail(response))
      if (response.status === 429 || response.status >= 500) {
        return { status: response.status, detail, retryAfterMs: this.retryDelay(response, retry) }
      }
      throw new LecternError('internal_error', `${this.source()} failed with HTTP ${response.status}: ${detail}${hint(response.status)}`)
    } catch (err) {
      signal?.throwIfAborted()
      if (err instanceof LecternError) throw err
      if (timeout.aborted) {
        throw new LecternError('internal_error', `${this.source()} did not answer within ${this.timeoutMs / 1000} s.`, {}, { cause: err })
      }
      if (err instanceof SyntaxError) {
        throw new LecternError('internal_error', `${this.source()} answered with invalid JSON.`, {}, { cause: err })
      }
      throw new LecternError(
        'internal_error',
        `Cannot reach the embedding server at ${redactUrls(this.host)} for model "${this.model}" (${networkReason(err)}).`,
        {},
        { cause: err },
      )
    }
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`
    return headers
  }

  /** Retry-After (seconds or an HTTP date) when sent, else exponential backoff; both capped. */
  private retryDelay(response: Response, retry: number): number {
    const header = response.headers.get('retry-after')
    let ms: number | undefined
    if (header !== null && header.trim() !== '') {
      const seconds = Number(header)
      ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now()
    }
    if (ms === undefined || !Number.isFinite(ms)) ms = this.retryBaseMs * 2 ** retry
    return Math.min(Math.max(ms, 0), this.maxRetryDelayMs)
  }

  private check(raw: unknown): Float32Array {
    const vector = toVector(raw, this.dims, this.source())
    this.dims ??= vector.length
    return vector
  }

  /** Servers sometimes echo the key in auth errors; it must not reach logs. */
  private scrub(text: string): string {
    return this.apiKey ? text.split(this.apiKey).join('***') : text
  }

  private source(): string {
    return `Embedding server ${redactUrls(this.host)} with model "${this.model}"`
  }
}

/** `http://h:8080`, `http://h:8080/`, `http://h:8080/v1` -> `http://h:8080/v1/embeddings`. */
function embeddingsUrl(host: string): string {
  let url: URL
  try {
    url = new URL(host)
  } catch {
    throw validationError(`The openai embedder host "${redactUrls(host)}" is not a URL; use e.g. http://127.0.0.1:8080.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw validationError(`The openai embedder host must be http or https, got ${url.protocol}`)
  }
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')
  url.pathname = `${path}/v1/embeddings`
  url.search = ''
  url.hash = ''
  return url.toString()
}

/** `data[].embedding` in input order: the spec lets servers answer in any order, keyed by `index`. */
function orderedEmbeddings(body: unknown, count: number, source: string): unknown[] {
  const data = (body as { data?: unknown } | null)?.data
  if (!Array.isArray(data)) {
    throw new LecternError('internal_error', `${source} answered without a data array.`)
  }
  if (data.length !== count) {
    throw new LecternError('internal_error', `${source} returned ${data.length} embeddings for ${count} texts.`)
  }
  const ordered = new Array<unknown>(count)
  data.forEach((item: { index?: unknown; embedding?: unknown } | null, position) => {
    const index = item?.index ?? position
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || ordered[index] !== undefined) {
      throw new LecternError('internal_error', `${source} returned a missing, duplicate or out-of-range index ${String(index)}.`)
    }
    ordered[index] = item?.embedding
  })
  return ordered
}

/** The server's own words: OpenAI `{error: {message}}`, TEI `{error}`, vLLM `{message}`, FastAPI `{detail}`. */
async function errorDetail(response: Response): Promise<string> {
  const text = (await response.text()).trim()
  let detail = text || response.statusText || 'no message'
  try {
    const body = JSON.parse(text) as Record<string, unknown>
    const error = body.error as { message?: unknown } | string | undefined
    const message = typeof error === 'string' ? error : (error?.message ?? body.message ?? body.detail)
    if (typeof message === 'string' && message) detail = message
  } catch {
    // Not JSON: the raw text is the best message there is.
  }
  return detail.length > MAX_ERROR_DETAIL ? `${detail.slice(0, MAX_ERROR_DETAIL)}…` : detail
}

function hint(status: number): string {
  if (status === 401 || status === 403) return '; check the API key.'
  if (status === 404) return '; check the model name and that the host serves /v1/embeddings.'
  return ''
}

/** Waits, but gives way to the caller's abort with its own reason. */
async function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await delay(ms, undefined, { signal })
  } catch (err) {
    signal?.throwIfAborted()
    throw err
  }
}
