import { isLecternError, LecternError, validationError } from '../errors.js'
import { HashEmbedder } from './hash.js'
import { OllamaEmbedder } from './ollama.js'
import { OpenAiEmbedder } from './openai.js'
import { PROBE_TEXT } from './remote.js'
import type { Embedder, EmbedderSettings } from './types.js'

export type { Embedder, EmbedderSettings } from './types.js'
export { HashEmbedder } from './hash.js'
export { OllamaEmbedder } from './ollama.js'
export { OpenAiEmbedder } from './openai.js'

export function createEmbedder(settings: EmbedderSettings): Embedder {
  switch (settings.provider) {
    case 'hash':
      return new HashEmbedder(settings)
    case 'ollama':
      return new OllamaEmbedder(settings)
    case 'openai':
      return new OpenAiEmbedder(settings)
    default:
      throw validationError(
        `Unknown embedding provider "${String((settings as { provider?: unknown }).provider)}"; use hash, ollama or openai.`,
      )
  }
}

/**
 * Embeds one probe text and returns the dimension, so a misconfigured provider fails at
 * startup with a clear message instead of during the first ingestion.
 */
export async function probeEmbedder(embedder: Embedder, signal?: AbortSignal): Promise<number> {
  const what = `The ${embedder.provider} embedder (model "${embedder.model}")`
  let vectors: Float32Array[]
  try {
    vectors = await embedder.embed([PROBE_TEXT], signal)
  } catch (err) {
    signal?.throwIfAborted()
    if (isLecternError(err)) throw err
    throw new LecternError('internal_error', `${what} failed its probe: ${err instanceof Error ? err.message : String(err)}`, {}, { cause: err })
  }
  if (vectors.length !== 1) {
    throw new LecternError('internal_error', `${what} returned ${vectors.length} vectors for one probe text.`)
  }
  const dims = vectors[0].length
  const announced = await embedder.dimensions()
  if (announced !== dims) {
    throw new LecternError('internal_error', `${what} announces ${announced} dimensions but returned ${dims}.`)
  }
  return dims
}
