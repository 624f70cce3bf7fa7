/**
 * `GET/PUT /api/settings/embedding`: read or switch the embedding provider. Admin session only
 * (it changes how every library is searched). A switch probes the provider first, so a wrong
 * host or model is refused with nothing changed; then the re-embedding runs in the background.
 */
import { audit } from '../../../src/audit/log.js'
import { auditContext } from '../../audit-context.js'
import type { FastifyInstance } from 'fastify'
import { configuredEmbedding } from '../../../src/embed/pool.js'
import type { EmbedderSettings } from '../../../src/embed/types.js'
import { switchEmbedding } from '../../../src/jobs/reembed.js'

const EmbeddingBody = {
  type: 'object',
  required: ['provider'],
  additionalProperties: false,
  properties: {
    provider: { type: 'string', enum: ['hash', 'ollama', 'openai'] },
    model: { type: 'string', minLength: 1, maxLength: 200 },
    host: { type: 'string', minLength: 1, maxLength: 500 },
    apiKey: { type: 'string', minLength: 1, maxLength: 500 },
    dimensions: { type: 'integer', minimum: 8, maximum: 8192 },
  },
} as const

export default async function settingsRoutes(app: FastifyInstance): Promise<void> {
  const { store, embedders, worker } = app.runtime
  const admin = { config: { access: 'admin' as const } }

  app.get('/settings/embedding', admin, async () => {
    const { apiKey, ...visible } = await configuredEmbedding(store)
    return { ...visible, apiKey: apiKey ? 'set' : undefined }
  })

  app.put<{ Body: EmbedderSettings }>('/settings/embedding', { ...admin, schema: { body: EmbeddingBody } }, async (request) => {
    const result = await switchEmbedding(store, embedders, request.body)
    await audit(store, await auditContext(request, store.users), 'settings.changed', 'embedding', { provider: result.provider, model: result.model, dimensions: result.dimensions })
    worker.wake()
    return { ...result, message: `Embedding provider set to ${result.provider} ${result.model}; re-embedding ${result.queuedSets} snippet sets in the background.` }
  })
}
