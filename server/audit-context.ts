/**
 * Who a request's audit events name, as callerOf (src/library/access.ts) decides who it is: its
 * API key (as its owner's email and the key's ID), else its signed-in user, else nobody; and the client's address as Fastify's trustProxy reads it.
 */
import type { FastifyRequest } from 'fastify'
import type { AuditAction } from '../src/audit/actions.js'
import { audit, type AuditContext } from '../src/audit/log.js'
import { likelyCause } from '../src/install/disk-full.js'
import type { LecternError } from '../src/errors.js'
import type { UsersRepository } from '../src/store/users.js'

export async function auditContext(request: FastifyRequest, users: UsersRepository): Promise<AuditContext> {
  const address = request.ip
  if (request.apiKey) {
    const { id, userId } = request.apiKey
    const owner = userId === null ? undefined : await users.byPk(userId)
    return { actor: { kind: 'api-key', name: owner ? `${owner.email} (key ${id})` : `key ${id}` }, address }
  }
  if (request.user) return { actor: { kind: 'user', name: request.user.email }, address }
  return { actor: { kind: 'anonymous', name: null }, address }
}

/**
 * Records the event of a refusal (a blocked library, a failed sign-in) beside it: the refusal is
 * answered even when the event cannot be written, which is logged instead. It never rejects.
 * `context`: who, when the request's own credentials do not say it.
 */
export async function auditRefusal(request: FastifyRequest, action: AuditAction, target: string | null, details: Record<string, unknown>, context?: AuditContext): Promise<void> {
  try {
    const { store } = request.server.runtime
    await audit(store, context ?? (await auditContext(request, store.users)), action, target, details)
  } catch (err) {
    request.log.error({ err, action, target }, `could not write an audit event (${likelyCause(err)})`)
  }
}

/**
 * Records that a request was refused a library that access rules or a policy keep from its
 * caller (`blockedLibrary`). Written after the answer, not before it: a 404 for a restricted
 * library must take no longer than one for a library that does not exist. The route is its
 * pattern, never the URL: a question in the query string stays out of the log.
 */
export function auditBlocked(request: FastifyRequest, err: LecternError): void {
  if (err.blockedLibrary === undefined) return
  const details = { route: `${request.method} ${request.routeOptions.url ?? ''}`, answered: err.code }
  setImmediate(() => void auditRefusal(request, 'access.blocked', err.blockedLibrary!, details))
}
