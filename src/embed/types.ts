/**
 * An embedding provider turns texts into vectors of a fixed dimension. Providers never pad or
 * truncate: a provider that returns a vector of another length than it announced is an error.
 */
export interface Embedder {
  /** 'hash' | 'ollama' | 'openai' */
  readonly provider: string
  readonly model: string
  /** Known after construction for `hash`; after the first call (or `probe()`) for remote providers. */
  dimensions(): Promise<number>
  /** Embeds texts in order; one vector per text. Remote providers batch internally. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>
}

export interface EmbedderSettings {
  provider: 'hash' | 'ollama' | 'openai'
  model?: string
  /** Base URL for ollama (default OLLAMA_HOST or http://127.0.0.1:11434) and openai-compatible servers. */
  host?: string
  /** Bearer key for openai-compatible servers; never logged. */
  apiKey?: string
  /** Dimension for the hash embedder (default 384). */
  dimensions?: number
  /** Texts per remote request (default 64). */
  batchSize?: number
}
