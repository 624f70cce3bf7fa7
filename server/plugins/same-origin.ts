/**
 * Cross-site request forgery: a state-changing request that a browser would send with the
 * session cookie (or one that signs in or sets up, whose cookie it would receive) must come from a
 * page of this server. Browsers name the page's origin in `Origin` on every POST, PUT, PATCH and
 * DELETE (and say `Sec-Fetch-Site` where they send no Origin); a request naming another site is
 * refused 403 before anything runs. A request with neither header is not a browser's (curl, a
 * script) and cannot carry a victim's cookie, so it passes. SameSite=Strict on the cookie is the
 * other half of this defence; this one holds where SameSite does not (a sibling subdomain).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { LecternError } from '../../src/errors.js'
import { isSameOrigin } from '../../src/net/allowed-hosts.js'
import { SESSION_COOKIE } from './session.js'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
/** Routes that set the session cookie: forging them would sign a victim in to the forger's account. */
const SIGN_IN_ROUTES = new Set(['/api/auth/login', '/api/setup'])

function isCrossSite(request: FastifyRequest): boolean {
  const origin = request.headers.origin
  // `Origin: null` (a sandboxed frame, a file: page) names no site of ours.
  if (origin !== undefined) return !isSameOrigin(origin, `${request.protocol}://${request.host}`)
  const site = request.headers['sec-fetch-site']
  return site !== undefined && site !== 'same-origin' && site !== 'none'
}

async function sameOrigin(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (request) => {
    if (SAFE_METHODS.has(request.method)) return
    const cookied = request.cookies[SESSION_COOKIE] !== undefined || SIGN_IN_ROUTES.has(request.routeOptions.url ?? '')
    if (cookied && isCrossSite(request)) {
      throw new LecternError('forbidden', 'Refused: this request came from another site. Use the dashboard of this server, or send it without a browser.')
    }
  })
}

export default fp(sameOrigin, { name: 'lectern-same-origin', dependencies: ['lectern-session'] })
