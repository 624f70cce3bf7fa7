/**
 * Bearer API keys. A request may come without a key (served under the anonymous rate limit);
 * a request that sends one must send a valid one: malformed, unknown or revoked -> 401.
 * Routes that need a key say so with `config: { access: 'apiKey' }` (see access.ts).
 * The 401 is not thrown here but kept in `request.apiKeyRefusal` for the rate limiter's hook,
 * which runs next, counts the request against its address and then throws it: otherwise
 * guessing keys would never be rate-limited.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isLecternError, LecternError } from '../../src/errors.js'
import type { Mode } from '../../src/config.js'
import { isWellFormedKey, type ApiKeyInfo, type KeysRepository } from '../../src/store/keys.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route authenticates its bearer token itself (an enterprise license key, not an API key). */
    licenseKeyAuth?: boolean
  }
  interface FastifyRequest {
    apiKey: ApiKeyInfo | null
    /** Why the key this request sent was refused; thrown by the rate limiter once counted. */
    apiKeyRefusal: LecternError | null
  }
  interface FastifyInstance {
    requireApiKey: (request: FastifyRequest) => Promise<void>
  }
}

const invalidKey = (why: string) => new LecternError('invalid_api_key', why)

/** The key of an `Authorization: Bearer <key>` header; undefined when there is no header. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match) throw invalidKey('The Authorization header must be "Bearer <API key>".')
  return match[1]
}

/** Where a caller gets a key, in each mode. */
const WHERE_KEYS_COME_FROM: Record<Mode, string> = {
  cloud: "create one on the dashboard's API keys page or with POST /api/teams/:team/keys",
  onprem: 'create one on the dashboard or with `lectern keys create`',
}

/**
 * Why a key was refused: not of a key's form, or of the form but unknown or revoked. Unknown and
 * revoked read alike, so the answer does not tell a guesser which keys once existed.
 */
export function refusedKeyMessage(token: string, mode: Mode): string {
  const where = WHERE_KEYS_COME_FROM[mode]
  if (!isWellFormedKey(token)) return `This is not an API key: keys start with "lct_" followed by letters and digits; ${where}.`
  return `This API key is unknown or has been revoked; ${where}.`
}

async function auth(app: FastifyInstance, options: { keys: KeysRepository; mode: Mode }): Promise<void> {
  app.decorateRequest('apiKey', null)
  app.decorateRequest('apiKeyRefusal', null)
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.licenseKeyAuth) return
    try {
      const token = bearerToken(request.headers.authorization)
      if (token === undefined) return
      const key = await options.keys.verify(token, request.catalogVersion)
      if (!key) throw invalidKey(refusedKeyMessage(token, options.mode))
      request.apiKey = key
    } catch (err) {
      // Only a refused key is kept for the rate limiter: a key that could not be checked (the
      // database unreachable) is answered as such at once, not counted as anonymous traffic.
      if (!isLecternError(err) || err.code !== 'invalid_api_key') throw err
      request.apiKeyRefusal = err
    }
  })
  app.decorate('requireApiKey', async (request: FastifyRequest) => {
    if (!request.apiKey) throw invalidKey('This endpoint requires an API key: send "Authorization: Bearer <API key>".')
  })
}

export default fp(auth, { name: 'lectern-auth', dependencies: ['lectern-errors', 'lectern-catalog-version'] })
