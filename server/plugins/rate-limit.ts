/**
 * Applies the rate limiter to every API request (not to liveness probes, nor to the dashboard's
 * page, assets and session check, which every page load asks for): keyed callers are
 * counted per key, signed-in users (a valid session cookie) per user, both under the keyed
 * limit, and anonymous callers per client address. A session has a bucket of its own because
 * behind a reverse proxy or NAT everyone shares an address: anonymous traffic must never use up
 * an admin's requests. Every counted response carries the RateLimit-* headers; past the limit,
 * 429 with Retry-After. /mcp is counted per tool call instead (see routes/mcp.ts), so a refusal
 * reaches the model as a readable tool result. A request whose API key auth.ts refused is counted
 * as anonymous on every path, /mcp and the probes included, and then gets that 401: guessing keys
 * uses up the address's requests like any other anonymous traffic. In the cloud a key of a
 * teamspace gets its plan's multiple of the keyed limit (src/tenancy/plans.ts); keys without a
 * teamspace and sessions get the keyed limit.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { LecternError } from '../../src/errors.js'
import type { RateLimitSettings } from '../../src/config.js'
import { RateLimiter, type RateLimitCounter, type RateLimitDecision } from '../../src/net/rate-limit.js'
import { SharedRateLimiter } from '../../src/net/shared-rate-limit.js'
import { PLAN_LIMITS } from '../../src/tenancy/plans.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * false: the route is not counted (the dashboard's page and assets, `GET /api/session`): a
     * browser loading the sign-in page must not use up the requests of the MCP clients and
     * scripts behind the same address.
     */
    rateLimited?: boolean
  }
  interface FastifyInstance {
    rateLimiter: {
      take(request: FastifyRequest): Promise<RateLimitDecision>
      /** Counts a sign-in attempt at `account` from the request's address; refuses it past rateLimit.signIn (429). */
      takeSignIn(request: FastifyRequest, reply: FastifyReply, account: string): Promise<void>
    }
  }
}

/** Sign-in attempts from one address, over all accounts, as a multiple of rateLimit.signIn. */
const SIGN_IN_ACCOUNTS_PER_ADDRESS = 5

const EXEMPT = new Set(['/api/health', '/api/ready', '/ping', '/mcp'])

export interface RateLimitOptions {
  limits: RateLimitSettings
  /**
   * Where requests are counted; default a RateLimiter in this process (src/net/rate-limit.ts), or
   * on PostgreSQL one whose counts the replicas share (src/net/shared-rate-limit.ts).
   */
  counter?: RateLimitCounter
}

/** This process's own counter: shared with the other replicas through the database on PostgreSQL. */
function ownCounter(app: FastifyInstance, limits: RateLimitSettings): RateLimitCounter {
  if (app.runtime.store.database.kind !== 'postgres') return new RateLimiter(limits)
  const shared = new SharedRateLimiter(limits, app.runtime.store.rateCounts, app.log)
  // Before the store closes (onClose hooks run in the reverse order of registration).
  app.addHook('onClose', () => shared.close())
  return shared
}

async function rateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const limiter = options.counter ?? ownCounter(app, options.limits)
  const teams = app.lecternOptions.config.mode === 'cloud' ? app.runtime.store.teams : undefined
  /** The key's teamspace's plan multiplier; a team gone since the key was read counts as free. */
  const multiplierOf = async (teamId: number | null, catalogVersion: number) =>
    teams && teamId !== null ? PLAN_LIMITS[await teams.planOf(teamId, catalogVersion) ?? 'free'].rateMultiplier : 1
  const take = async (request: FastifyRequest) => {
    if (request.apiKeyRefusal) return limiter.take(`ip:${request.ip}`, 'anonymous')
    if (request.apiKey) return limiter.take(`key:${request.apiKey.id}`, 'keyed', await multiplierOf(request.apiKey.teamId, request.catalogVersion))
    if (request.user) return limiter.take(`user:${request.user.id}`, 'keyed')
    return limiter.take(`ip:${request.ip}`, 'anonymous')
  }
  const refuse = (reply: FastifyReply, decision: RateLimitDecision, message: string) => {
    reply.header('Retry-After', decision.retryAfter)
    return new LecternError('rate_limit_exceeded', message)
  }
  app.decorate('rateLimiter', {
    take,
    async takeSignIn(request, reply, account) {
      const decision = await limiter.take(`sign-in:${account.trim().toLowerCase()}|${request.ip}`, 'signIn')
      if (!decision.allowed) throw refuse(reply, decision, `Too many sign-in attempts for this account from this address; retry in ${decision.retryAfter} s.`)
      // And all accounts from one address together, at a multiple: spraying passwords over many accounts is refused too.
      const address = await limiter.take(`sign-in-address:${request.ip}`, 'signIn', SIGN_IN_ACCOUNTS_PER_ADDRESS)
      if (!address.allowed) throw refuse(reply, address, `Too many sign-in attempts from this address; retry in ${address.retryAfter} s.`)
    },
  })
  app.addHook('onRequest', async (request, reply) => {
    const unmetered = EXEMPT.has(request.url.split('?')[0]) || request.routeOptions.config.rateLimited === false
    if (unmetered && !request.apiKeyRefusal) return
    const decision = await take(request)
    if (decision.limit > 0) {
      reply.header('RateLimit-Limit', decision.limit)
      reply.header('RateLimit-Remaining', decision.remaining)
      reply.header('RateLimit-Reset', decision.reset)
      if (!decision.allowed) {
        throw refuse(
          reply,
          decision,
          `Rate limit of ${decision.limit} requests per ${options.limits.windowSeconds} s exceeded; retry in ${decision.retryAfter} s${request.apiKey || request.user ? '' : ', or send an API key for a higher limit'}.`,
        )
      }
    }
    if (request.apiKeyRefusal) throw request.apiKeyRefusal
  })
}

export default fp(rateLimit, { name: 'lectern-rate-limit', dependencies: ['lectern-catalog-version', 'lectern-auth', 'lectern-session'] })
