/**
 * JSON bodies, on every route: Fastify's own parser (which refuses prototype poisoning), behind a
 * nesting limit checked before parsing, so a body of 100,000 nested arrays is a 400
 * validation_error on whatever route it is sent to (src/json-text.ts says why).
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeeplyNested } from '../../src/json-text.js'

async function jsonBody(app: FastifyInstance): Promise<void> {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) return done(tooDeeplyNested('The body'), undefined)
    parse(request, body as string, done)
  })
}

export default fp(jsonBody, { name: 'lectern-json-body', dependencies: ['lectern-errors'] })
