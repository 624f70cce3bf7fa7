/**
 * Refuses, before anything runs, a request that names the install by a name it does not answer
 * to, or that comes from a page of another site (src/net/allowed-hosts.ts): 403 `forbidden`.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { LecternError } from '../../src/errors.js'
import type { HostPolicy } from '../../src/net/allowed-hosts.js'

async function allowedHosts(app: FastifyInstance, options: { policy: HostPolicy }): Promise<void> {
  const warned = new Set<string>()
  app.addHook('onRequest', async (request) => {
    // The Host a browser sent, which a page cannot set; behind a trusted proxy the forwarded host
    // (which a page can send) must pass too, so neither can stand in for the other.
    const sent = request.headers.host ?? ''
    const refusal =
      options.policy.hostRefusal(sent) ??
      (request.host === sent ? undefined : options.policy.hostRefusal(request.host)) ??
      (request.headers.origin === undefined ? undefined : options.policy.originRefusal(request.headers.origin, `${request.protocol}://${request.host}`))
    if (refusal === undefined) return
    // Once per refusal: an operator who forgot a name learns which, a rebinding page cannot flood the log.
    if (!warned.has(refusal) && warned.size < 100) {
      warned.add(refusal)
      request.log.warn({ host: request.host, origin: request.headers.origin }, refusal)
    }
    throw new LecternError('forbidden', refusal)
  })
}

export default fp(allowedHosts, { name: 'lectern-allowed-hosts', dependencies: ['lectern-errors'] })
