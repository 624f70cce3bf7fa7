/**
 * JSON bodies, on every route: Fastify's own parser (which refuses prototype poisoning), behind a
 * nesting limit checked before parsing, so a body of 100,000 nested arrays is a 400
 * validation_error on whatever route it is sent to (src/text/json-text.ts says why). Fastify says
 * "not valid JSON" for a poisoning key too, so a refused body that is valid JSON is told why.
 */
import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { LecternError } from '../../src/errors.js'
import { isJson, MAX_JSON_DEPTH, nestsDeeperThan, tooDeeplyNested } from '../../src/text/json-text.js'

const poisoned = () => new LecternError('validation_error', 'JSON bodies may not contain __proto__ or constructor keys.')

async function jsonBody(app: FastifyInstance): Promise<void> {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) return done(tooDeeplyNested('The body'), undefined)
    void parse(request, body as string, (err, parsed) => {
      if ((err as FastifyError | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' && isJson(body as string)) return done(poisoned(), undefined)
      done(err, parsed)
    })
  })
}

export default fp(jsonBody, { name: 'lectern-json-body', dependencies: ['lectern-errors'] })
