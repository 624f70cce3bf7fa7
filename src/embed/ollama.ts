import { Ollama } from 'ollama'
import { LecternError } from '../errors.js'
import { batches, embeddingFetch, networkReason, PROBE_TEXT, redactUrls, rejectCredentials, resolveBatchSize, toVector } from './remote.js'
import type { Embedder, EmbedderSettings } from './types.js'

export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434'
export const OLLAMA_DEFAULT_MODEL = 'nomic-embed-text'

/** Embeds through Ollama's batch endpoint, `POST /api/embed {model, input: string[]}`. */
export class OllamaEmbedder implements Embedder {
  readonly provider = 'ollama'
  readonly model: string
  readonly host: string
  private readonly batchSize: number
  private readonly fetch = embeddingFetch(() => this.source())
  private dims: number | undefined

  constructor(settings: Pick<EmbedderSettings, 'model' | 'host' | 'batchSize'> = {}) {
    this.model = settings.model || OLLAMA_DEFAULT_MODEL
    this.host = settings.host || process.env.OLLAMA_HOST || OLLAMA_DEFAULT_HOST
    rejectCredentials(this.host, 'ollama')
    this.batchSize = resolveBatchSize(settings.batchSize)
  }

  async dimensions(): Promise<number> {
    if (this.dims === undefined) await this.embed([PROBE_TEXT])
    return this.dims as number
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted()
    const client = this.client(signal)
    const vectors: Float32Array[] = []
    for (const batch of batches(texts, this.batchSize)) {
      signal?.throwIfAborted()
      const embeddings = await this.request(client, batch, signal)
      for (const raw of embeddings) vectors.push(this.check(raw))
    }
    return vectors
  }

  /**
   * `Ollama.embed()` takes no signal but the client accepts a fetch, so the caller's signal is
   * bound there to cancel a request in flight, not just between batches. That fetch goes through
   * the outbound proxy and caps the answer (embeddingFetch).
   */
  private client(signal: AbortSignal | undefined): Ollama {
    const boundFetch: typeof fetch = signal ? (input, init) => this.fetch(input, { ...init, signal }) : this.fetch
    return new Ollama({ host: this.host, fetch: boundFetch })
  }

  private async request(client: Ollama, batch: string[], signal: AbortSignal | undefined): Promise<unknown[]> {
    let response: { embeddings?: unknown }
    try {
      response = await client.embed({ model: this.model, input: batch })
    } catch (err) {
      signal?.throwIfAborted()
      throw this.failure(err)
    }
    const embeddings = response.embeddings
    if (!Array.isArray(embeddings) || embeddings.length !== batch.length) {
      const got = Array.isArray(embeddings) ? `${embeddings.length} embeddings` : 'no embeddings array'
      throw new LecternError('internal_error', `${this.source()} returned ${got} for ${batch.length} texts.`)
    }
    return embeddings
  }

  private check(raw: unknown): Float32Array {
    const vector = toVector(raw, this.dims, this.source())
    this.dims ??= vector.length
    return vector
  }

  private failure(err: unknown): LecternError {
    if (err instanceof LecternError) return err
    const where = this.source()
    const status = responseStatus(err)
    const detail = redactUrls(err instanceof Error ? err.message : String(err))
    if (status === 404) {
      return new LecternError(
        'internal_error',
        `${where} does not have the model (${detail}); run \`ollama pull ${this.model}\` on that host.`,
        {},
        { cause: err },
      )
    }
    if (status !== undefined) {
      return new LecternError('internal_error', `${where} failed with HTTP ${status}: ${detail}`, {}, { cause: err })
    }
    return new LecternError(
      'internal_error',
      `Cannot reach Ollama at ${redactUrls(this.host)} for model "${this.model}" (${networkReason(err)}); ` +
        'check that Ollama is running and OLLAMA_HOST or the embedder host is right.',
      {},
      { cause: err },
    )
  }

  private source(): string {
    return `Ollama at ${redactUrls(this.host)} with model "${this.model}"`
  }
}

/** The HTTP status of the client's (unexported) ResponseError, if `err` is one. */
function responseStatus(err: unknown): number | undefined {
  if (!(err instanceof Error) || err.name !== 'ResponseError') return undefined
  const status = (err as { status_code?: unknown }).status_code
  return typeof status === 'number' ? status : undefined
}
