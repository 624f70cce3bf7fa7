import { LecternError, validationError } from '../errors.js'

/** Helpers shared by the providers that call an embedding server. */

export const DEFAULT_BATCH_SIZE = 64

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
