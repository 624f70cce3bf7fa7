/**
 * `request.catalogVersion`: the catalogue version (src/store/index.ts) read once per request, at
 * its first use. What a request consults that servers cache from the database (API keys, the
 * on-premise access rules, teamspace policies and plans, resolved libraries) is checked against
 * it, so a request reads the database once for all of them, and one that needs none reads nothing.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyRequest {
    /** store.catalogVersion(), read at this request's first use of it. */
    readonly catalogVersion: number
  }
}

const READ = Symbol('lectern.catalogVersion')

async function catalogVersion(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  app.decorateRequest(READ, undefined)
  app.decorateRequest('catalogVersion', {
    getter(this: FastifyRequest & { [READ]?: number }) {
      return (this[READ] ??= store.catalogVersion())
    },
  })
}

export default fp(catalogVersion, { name: 'lectern-catalog-version' })
