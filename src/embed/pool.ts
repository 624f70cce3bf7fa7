/**
 * The configured embedding provider (setting `embedding`, default the built-in hash embedder)
 * and a pool of embedders by provider, model and dimension: a query must be embedded by the
 * same model that embedded the snippet set it searches, even while a provider switch re-embeds.
 */
import { createHash } from 'node:crypto'
import type { SecretBox } from '../secrets/cipher.js'
import { SETTING_KEYS, type SettingsRepository } from '../store/settings.js'
import { createEmbedder } from './index.js'
import type { Embedder, EmbedderSettings } from './types.js'

export const EMBEDDING_SETTING = SETTING_KEYS.embedding
export const DEFAULT_EMBEDDING: EmbedderSettings = { provider: 'hash' }

/** What reading and writing the embedding setting needs: the settings, and the box that seals its API key. */
export interface EmbeddingStore {
  settings: SettingsRepository
  secrets: SecretBox
}

/** As stored: an OpenAI-compatible server's API key is sealed with secret.key, never kept plain. */
type StoredEmbedding = Omit<EmbedderSettings, 'apiKey'> & { apiKeySealed?: string }

export async function configuredEmbedding(store: EmbeddingStore): Promise<EmbedderSettings> {
  const stored = await store.settings.get<StoredEmbedding>(EMBEDDING_SETTING)
  if (!stored) return DEFAULT_EMBEDDING
  const { apiKeySealed, ...settings } = stored
  return apiKeySealed ? { ...settings, apiKey: store.secrets.open(apiKeySealed) } : settings
}

export async function saveEmbedding(store: EmbeddingStore, settings: EmbedderSettings): Promise<void> {
  const { apiKey, ...rest } = settings
  const stored: StoredEmbedding = apiKey ? { ...rest, apiKeySealed: store.secrets.seal(apiKey) } : rest
  await store.settings.set(EMBEDDING_SETTING, stored)
}

export class EmbedderPool {
  private readonly embedders = new Map<string, Embedder>()

  constructor(private readonly store: EmbeddingStore) {}

  /** The embedder new snippet sets are built with. */
  async current(): Promise<Embedder> {
    return this.get(await configuredEmbedding(this.store))
  }

  /** The embedder that built a set with this provider, model and dimension. */
  async forSet(set: { embedProvider: string; embedModel: string; dimensions: number }): Promise<Embedder> {
    // The hash embedder needs no settings: skip reading them on the hot path of every query.
    if (set.embedProvider === 'hash') return this.get({ provider: 'hash', model: set.embedModel, dimensions: set.dimensions })
    const configured = await configuredEmbedding(this.store)
    const base = configured.provider === set.embedProvider ? configured : { provider: set.embedProvider as EmbedderSettings['provider'] }
    return this.get({ ...base, model: set.embedModel })
  }

  /**
   * One embedder per distinct setting, API key included (as a digest): a key changed by any
   * process (`lectern config set`, another worker of `serve --workers`) is used from the next
   * query on, since the setting is read from the database each time.
   */
  private get(settings: EmbedderSettings): Embedder {
    const apiKey = settings.apiKey ? createHash('sha256').update(settings.apiKey).digest('hex') : ''
    const key = `${settings.provider}|${settings.model ?? ''}|${settings.dimensions ?? ''}|${settings.host ?? ''}|${apiKey}`
    let embedder = this.embedders.get(key)
    if (!embedder) {
      embedder = createEmbedder(settings)
      this.embedders.set(key, embedder)
    }
    return embedder
  }
}
