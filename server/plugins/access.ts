/**
 * Who may call a route, checked as the request arrives (onRequest), before its body is read or
 * validated: a caller without the credentials a route needs gets 401 or 403, never a 400 that
 * describes the route's schema, and nothing they send is parsed. A route says what it needs in
 * its config: `{ config: { access: 'apiKey' } }` (a valid API key, or an admin session: the
 * dashboard adds and refreshes libraries with the operator's sign-in, as a script does with a key)
 * or `{ config: { access: 'admin' } }` (an admin session), `{ config: { access: 'adminKey' } }` (an admin
 * session or an admin's API key: what CI calls, such as a GitOps sync), or `{ config: { access: 'session' } }`
 * (any signed-in user: the cloud's accounts and teamspaces, server/routes/teams.ts). The same hook settles `request.caller`
 * (src/library/access.ts) once, with what the rules settle on it (src/library/visibility.ts), for every
 * route to ask what the request may see; the settler checks what it caches against the request's
 * catalogue version (catalog-version.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ANONYMOUS, callerOf, type Caller } from '../../src/library/access.js'
import { LecternError } from '../../src/errors.js'
import { createCallerSettler } from '../../src/library/visibility.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: 'apiKey' | 'admin' | 'adminKey' | 'session'
  }
  interface FastifyRequest {
    /** Who is asking (src/library/access.ts): what the request may see and do. */
    caller: Caller
  }
}

async function access(app: FastifyInstance): Promise<void> {
  const { mode } = app.lecternOptions.config
  const { store } = app.runtime
  const settle = createCallerSettler(store, mode)
  app.decorateRequest('caller', null as never)
  /** An API key whose owner is an admin (on-premise users; the CLI's keys without an owner are not an admin's). */
  const requireAdminKey = async (request: FastifyRequest): Promise<void> => {
    if (request.user) throw new LecternError('forbidden', 'This endpoint is for admins: an admin session, or the API key of an admin.')
    await app.requireApiKey(request)
    const { caller } = request
    if (caller.kind !== 'api-key' || caller.userId === null || !(await store.libraryAccess.isAdmin(caller.userId))) {
      throw new LecternError('forbidden', 'This endpoint needs the API key of an admin (`lectern keys create --user <admin email>`), or an admin session.')
    }
  }
  app.addHook('onRequest', async (request) => {
    // A probe is about this process, not about who asks: it never waits on the database, which
    // settling a caller may read (the catalogue moved since the last request), so a database
    // outage does not fail liveness and get every replica restarted.
    if (request.routeOptions.config?.probe) {
      request.caller = ANONYMOUS
      return
    }
    request.caller = await settle(request.apiKeyRefusal ? ANONYMOUS : await callerOf(request, mode, store.teams.teamIdsOf), request.catalogVersion)
    const needed = request.routeOptions.config?.access
    if (needed === 'admin') await app.requireAdmin(request)
    else if (needed === 'session' && !request.user) throw new LecternError('not_authenticated', 'This endpoint needs a session: sign in with POST /api/auth/login.')
    else if (needed === 'apiKey' && request.user?.role !== 'admin') await app.requireApiKey(request)
    else if (needed === 'adminKey' && request.user?.role !== 'admin') await requireAdminKey(request)
  })
}

// After the rate limit, so refused callers are counted like any other.
export default fp(access, { name: 'lectern-access', dependencies: ['lectern-catalog-version', 'lectern-auth', 'lectern-session', 'lectern-rate-limit'] })
