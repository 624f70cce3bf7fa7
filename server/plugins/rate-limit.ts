/**
 * Applies the rate limiter to every API request (not to liveness probes): keyed callers are
 * counted per key, anonymous ones per client address. Every counted response carries the
 * RateLimit-* headers; past the limit, 429 with Retry-After. /mcp is counted per tool call
 * instead (see routes/mcp.ts), so a refusal reaches the model as a readable tool result.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { LecternError } from '../../src/errors.js'
import type { RateLimitSettings } from '../../src/config.js'
import { RateLimiter, type RateLimitDecision } from '../../src/rate-limit.js'

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: { take(request: FastifyRequest): RateLimitDecision }
  }
}

const EXEMPT = new Set(['/api/health', '/api/ready', '/ping', '/mcp'])

async function rateLimit(app: FastifyInstance, options: { limits: RateLimitSettings }): Promise<void> {
  const limiter = new RateLimiter(options.limits)
  const take = (request: FastifyRequest) =>
    limiter.take(request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`, request.apiKey !== null)
  app.decorate('rateLimiter', { take })
  app.addHook('onRequest', async (request, reply) => {
    if (EXEMPT.has(request.url.split('?')[0])) return
    const decision = take(request)
    if (decision.limit === 0) return
    reply.header('RateLimit-Limit', decision.limit)
    reply.header('RateLimit-Remaining', decision.remaining)
    reply.header('RateLimit-Reset', decision.reset)
    if (!decision.allowed) {
      reply.header('Retry-After', decision.retryAfter)
      throw new LecternError(
        'rate_limit_exceeded',
        `Rate limit of ${decision.limit} requests per ${options.limits.windowSeconds} s exceeded; retry in ${decision.retryAfter} s${request.apiKey ? '' : ', or send an API key for a higher limit'}.`,
      )
    }
  })
}

export default fp(rateLimit, { name: 'lectern-rate-limit', dependencies: ['lectern-auth'] })
