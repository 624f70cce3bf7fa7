import type { FastifyInstance } from 'fastify'
import { DEFAULT_TOKENS } from '../../../src/search/budget.js'
import { renderJsonBuffer, renderTextBuffer } from '../../../src/index/render.js'
import { clientKind } from '../../../src/usage/recorder.js'
import { ContextQuery, type ContextQueryType } from '../../schemas/libraries.js'

export default async function context(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: ContextQueryType }>('/v2/context', { schema: { querystring: ContextQuery } }, async (request, reply) => {
    const { libraryId, query, type, tokens } = request.query
    const answer = await app.runtime.retriever.getContext({
      libraryId,
      query,
      tokens: tokens ?? DEFAULT_TOKENS,
      caller: request.caller,
      catalogVersion: request.catalogVersion,
    })
    const { countryHeader } = app.lecternOptions.config.metrics
    app.runtime.usage.record(answer.library.pk, clientKind(request.headers['x-context7-source'], 'api'), type === 'json' ? 'rest-json' : 'rest-txt', new Date(), {
      question: query,
      country: countryHeader ? request.headers[countryHeader] : undefined,
    })
    const rules = answer.library.rules
    if (type === 'json') return reply.type('application/json; charset=utf-8').send(renderJsonBuffer(answer.snippets, rules, answer.scores))
    return reply.type('text/plain; charset=utf-8').send(renderTextBuffer(answer.snippets, rules))
  })
}
