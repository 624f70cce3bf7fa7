/**
 * Single sign-on (on-premise, src/sso/oidc.ts): `GET /api/auth/sso/login` sends the browser to the
 * identity provider, keeping the flow in a sealed cookie scoped to these routes; the provider
 * sends it back to `GET /api/auth/sso/callback`, which checks the answer, creates or updates the
 * user (just in time: role and groups as the provider says now) and starts a Lectern session.
 * The flow cookie is cleared as it is read: an answer is used once, and a replayed one finds no
 * flow. A failed sign-in is audited and shown on the dashboard's sign-in page (`?signInError=`).
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import { audit } from '../../src/audit/log.js'
import { isLecternError, LecternError } from '../../src/errors.js'
import type { SsoSource } from '../../src/sso/configuration.js'
import { isBreakGlass, SsoFlowSchema, type SingleSignOn, type SsoFlow } from '../../src/sso/oidc.js'
import { auditRefusal } from '../audit-context.js'
import { startSession } from '../plugins/session.js'

const FLOW_COOKIE = 'lectern_sso'
const FLOW_PATH = '/api/auth/sso'

const LoginQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { returnTo: { type: 'string', maxLength: 2000 } },
} as const

/** The single sign-on in force: not_found while none is configured (src/sso/configuration.ts). */
async function inForce(source: SsoSource): Promise<SingleSignOn> {
  const sso = await source.current()
  if (!sso) throw new LecternError('not_found', "Single sign-on is not configured on this install: an admin configures it in the dashboard's Settings, or in lectern.yaml.")
  return sso
}

export default async function ssoRoutes(app: FastifyInstance, options: { sso: SsoSource }): Promise<void> {
  const { store } = app.runtime

  app.get<{ Querystring: { returnTo?: string } }>('/auth/sso/login', { schema: { querystring: LoginQuery } }, async (request, reply) => {
    let started: { sso: SingleSignOn; url: string; flow: SsoFlow }
    try {
      const sso = await inForce(options.sso)
      started = { sso, ...(await sso.start(request.query.returnTo)) }
    } catch (err) {
      // A browser followed the button here: it goes back to the sign-in page, which says why.
      if (!isLecternError(err)) throw err
      return signInError(reply, err)
    }
    const { sso, url, flow } = started
    reply.setCookie(FLOW_COOKIE, store.secrets.seal(JSON.stringify(flow)), {
      path: FLOW_PATH,
      httpOnly: true,
      // Lax: the provider's redirect back is a top-level navigation from its site, which a strict cookie would miss.
      sameSite: 'lax',
      secure: request.protocol === 'https' || sso.redirectUri.startsWith('https:'),
      maxAge: 600,
    })
    return reply.redirect(url, 302)
  })

  app.get('/auth/sso/callback', async (request, reply) => {
    const sealed = request.cookies[FLOW_COOKIE]
    reply.clearCookie(FLOW_COOKIE, { path: FLOW_PATH })
    let flow: SsoFlow | undefined
    try {
      const sso = await inForce(options.sso)
      flow = readFlow(store.secrets.open.bind(store.secrets), sealed)
      // The URL the provider sent the browser to, on the registered redirect URI: never the Host header.
      const claims = await sso.finish(new URL(request.url, sso.redirectUri), flow)
      // A break-glass admin is the way in when the provider is down: never an identity the provider can claim.
      if (isBreakGlass(sso.settings.breakGlassAdmins, claims.email)) {
        throw new LecternError('forbidden', `${claims.email} is a break-glass admin of this install, who signs in with a password only.`)
      }
      const { user, previousRole } = await store.users.signInSso({ ...claims, role: (current) => sso.roleFor(claims, current) })
      await startSession(request, reply, store.users, user)
      const context = { actor: { kind: 'user' as const, name: user.email }, address: request.ip }
      if (previousRole === null) await audit(store, context, 'user.created', user.email, { role: user.role, via: 'sso' })
      else if (previousRole !== user.role) await audit(store, context, 'user.role.changed', user.email, { role: user.role, from: previousRole, via: 'sso' })
      await audit(store, context, 'signin.succeeded', user.email, { method: 'sso', groups: claims.groups })
      return reply.redirect(flow.returnTo, 302)
    } catch (err) {
      if (!isLecternError(err)) throw err
      await auditRefusal(request, 'signin.failed', null, { method: 'sso', reason: err.code }, { actor: { kind: 'anonymous', name: null }, address: request.ip })
      return signInError(reply, err)
    }
  })
}

/** The flow the cookie holds; none, a forged or an expired one is not_authenticated. */
function readFlow(open: (sealed: string) => string, sealed: string | undefined): SsoFlow {
  if (!sealed) throw new LecternError('not_authenticated', 'No sign-in is in progress in this browser (or it was already used); start again from the sign-in page.')
  let parsed: unknown
  try {
    parsed = JSON.parse(open(sealed))
  } catch {
    throw new LecternError('not_authenticated', 'The sign-in cookie is not one this server made; start again from the sign-in page.')
  }
  const flow = SsoFlowSchema.safeParse(parsed)
  if (!flow.success) throw new LecternError('not_authenticated', 'The sign-in cookie is not one this server made; start again from the sign-in page.')
  return flow.data
}

/** Back to the sign-in page, which shows why. */
function signInError(reply: FastifyReply, err: LecternError): FastifyReply {
  return reply.redirect(`/?signInError=${encodeURIComponent(err.message)}`, 302)
}
