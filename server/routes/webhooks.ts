/**
 * Push webhooks from git hosts (on-premise): `POST /api/webhooks/{github,gitlab,gitea}`. Anyone
 * may call them; what proves a delivery is its signature (or GitLab's token), checked against the
 * webhook secret of the git connection for its repository's host (src/webhooks/). The body is
 * kept as received, since the signature covers its exact bytes; this plugin is encapsulated so
 * that parser applies here only. A push is answered 202 once its work is queued; another event
 * 200, untouched.
 */
import type { FastifyInstance } from 'fastify'
import { PushSyncs } from '../../src/gitops/push-syncs.js'
import { receiveWebhook } from '../../src/webhooks/receive.js'
import type { WebhookProvider } from '../../src/webhooks/providers.js'
import { WebhookOutcomeSchema, WebhookParams } from '../schemas/webhooks.js'

/** A push's payload lists at most 20 commits: far less than this, which bounds the hashing an unproven delivery costs. */
const BODY_LIMIT = 10 * 1024 * 1024

export default async function webhooks(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const syncs = new PushSyncs(store, app.log, app.runtime.forgetSet)
  app.addHook('onClose', async () => await syncs.stop())
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body))

  app.post<{ Params: { provider: WebhookProvider }; Body: Buffer }>(
    '/webhooks/:provider',
    // Not counted against the anonymous limit: a busy git host sends more than a person would, and
    // refuses nothing it cannot prove (a refusal costs a hash per webhook secret, and its audit event is written at most once a minute).
    { bodyLimit: BODY_LIMIT, config: { rateLimited: false }, schema: { params: WebhookParams, response: { 200: WebhookOutcomeSchema, 202: WebhookOutcomeSchema } } },
    async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      const outcome = await receiveWebhook(store, { provider: request.params.provider, headers: request.headers, body, address: request.ip }, { syncGitOps: () => syncs.request(), log: request.log })
      return reply.code(outcome.status === 'queued' ? 202 : 200).send(outcome)
    },
  )
}
