import { Response } from 'undici'
import { LecternError, validationError } from '../errors.js'
import { capStream, formatLimit } from '../net/body.js'
import { outboundFetch } from '../net/outbound.js'

/** Helpers shared by the providers that call an embedding server. */

export const DEFAULT_BATCH_SIZE = 64

/** A batch of 64 vectors of 4,096 dimensions is about 6 MB of JSON; anything far beyond is not an answer. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024

/**
 * fetch for an embedding server: through the outbound proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY),
 * its body read only up to MAX_RESPONSE_BYTES after decompression, so neither a runaway answer
 * nor a compressed bomb can fill the memory. `source` names the server in the error.
 */
export function embeddingFetch(source: () => string): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const response = (await outboundFetch(input, init)) as unknown as Response
    if (!response.body) return response
    const tooLarge = () => new LecternError('internal_error', `${source()} answered with more than ${formatLimit(MAX_RESPONSE_BYTES)} decompressed; that is not an embedding response.`)
    return new Response(capStream(response.body, MAX_RESPONSE_BYTES, tooLarge), { status: response.status, statusText: response.statusText, headers: response.headers })
  }) as unknown as typeof fetch
}

/** Embedded to learn a remote model's dimension before any real text is sent. */
export const PROBE_TEXT = 'Lectern embedding probe: fs.readFile reads a file.'

export function resolveBatchSize(batchSize: number | undefined): number {
  const size = batchSize ?? DEFAULT_BATCH_SIZE
  if (!Number.isInteger(size) || size < 1) {
    throw validationError(`Embedding batchSize must be a positive integer, got ${size}.`)
  }
  return size
}

export function* batches<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size)
}

/**
 * Masks user info in any URL in `text` (`http://user:pass@h` -> `http://***@h`): it may be a
 * credential, and fetch errors quote the URL they refused.
 */
export function redactUrls(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1***@')
}

/** fetch refuses URLs with user info, so say so up front rather than fail on the first call. */
export function rejectCredentials(host: string, provider: string): void {
  if (redactUrls(host) !== host) {
    throw validationError(
      `The ${provider} embedder host ${redactUrls(host)} carries credentials in the URL; ` +
        'remove them (openai-compatible servers take apiKey instead).',
    )
  }
}

/** Why a fetch failed to connect, e.g. `ECONNREFUSED`; undici hides it in `cause`. */
export function networkReason(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code
    return code ?? redactUrls(cause.message)
  }
  return redactUrls(err instanceof Error ? err.message : String(err))
}

/**
 * Checks and converts one vector. The first vector a provider returns fixes its dimension;
 * every later one must match, because padding or truncating would silently corrupt the index.
 */
export function toVector(raw: unknown, expected: number | undefined, source: string): Float32Array {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new LecternError('internal_error', `${source} returned an embedding that is not a non-empty array of numbers.`)
  }
  if (expected !== undefined && raw.length !== expected) {
    throw new LecternError(
      'internal_error',
      `${source} returned a vector of ${raw.length} dimensions, expected ${expected}; vectors are never padded or truncated.`,
    )
  }
  const out = new Float32Array(raw.length)
  for (let i = 0; i < raw.length; i++) {
    const x = raw[i]
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new LecternError('internal_error', `${source} returned a non-finite value at position ${i} of a vector.`)
    }
    out[i] = x
  }
  return out
}
