/**
 * OpenID Connect single sign-on for the dashboard (on-premise), through openid-client, a certified
 * relying party: the provider found by its issuer (discovery; its keys from its JWKS through
 * jose, read again when it signs with a key not seen before, so a key rotation needs nothing here), the
 * Authorization Code flow with PKCE, `state` and `nonce`, the RFC 9207 `iss` check of the
 * authorization response, and ID tokens checked with `sso.clockToleranceSeconds` of leeway.
 *
 * A sign-in in flight is a `SsoFlow`: its state, nonce and PKCE verifier, kept by the browser in
 * a sealed cookie (server/routes/sso.ts) so any replica can finish it, valid ten minutes and used
 * once. What the provider says of the user (`SsoClaims`) decides who they are in Lectern:
 * `roleFor` and `users.signInSso`.
 */
import { compactVerify, createRemoteJWKSet, customFetch } from 'jose'
import * as client from 'openid-client'
import { z } from 'zod'
import type { SsoSettings } from '../config.js'
import { LecternError } from '../errors.js'
import { outboundFetch } from '../net/outbound.js'
import type { Role } from '../store/users.js'

export const SSO_CALLBACK_PATH = '/api/auth/sso/callback'
const FLOW_MS = 10 * 60 * 1000
/**
 * A path of this site: printable ASCII only (a browser drops tabs and newlines from a URL, which
 * would make `/\t/host` another site), no backslash (which browsers read as a slash), not `//`.
 */
const RETURN_PATH = /^\/(?![/\\])[\x21-\x5b\x5d-\x7e]*$/
/** Discovery is read again after this long, so a provider's moved endpoints are followed. */
const DISCOVERY_MS = 60 * 60 * 1000

export const SsoFlowSchema = z.object({
  state: z.string().min(1),
  nonce: z.string().min(1),
  codeVerifier: z.string().min(43),
  /** Where the dashboard goes once signed in: a path of it, never another site. */
  returnTo: z.string().regex(RETURN_PATH),
  expiresAt: z.number(),
})
export type SsoFlow = z.infer<typeof SsoFlowSchema>

export interface SsoClaims {
  /** `<issuer> <sub>`. */
  subject: string
  email: string
  /** Whether the provider says the email is verified (`email_verified: true`); many leave it out. */
  emailVerified: boolean
  name: string | null
  groups: string[]
}

export interface SsoOptions {
  settings: SsoSettings
  /** The dashboard's public address (mail.publicUrl), whose SSO_CALLBACK_PATH is the redirect URI. */
  publicUrl: string
  clientSecret: string | undefined
}

/** Whether single sign-on is configured; `requireSsoConfig` says what is missing when it is half configured. */
export const ssoEnabled = (settings: SsoSettings): boolean => settings.issuer !== ''

export function requireSsoConfig(options: SsoOptions): void {
  const { settings } = options
  if (!ssoEnabled(settings)) {
    if (settings.clientId !== '') throw new LecternError('validation_error', 'sso.clientId is set but sso.issuer is not: name the provider, or remove the sso settings to leave single sign-on off.')
    return
  }
  const missing = [settings.clientId === '' && 'sso.clientId (LECTERN_SSO_CLIENT_ID)', options.publicUrl === '' && 'mail.publicUrl (LECTERN_PUBLIC_URL: the address users reach the dashboard at)']
  const named = missing.filter(Boolean)
  if (named.length > 0) throw new LecternError('validation_error', `sso.issuer is set but ${named.join(' and ')} ${named.length === 1 ? 'is' : 'are'} not.`)
  if (!settings.passwordSignIn && settings.breakGlassAdmins.length === 0) {
    throw new LecternError('validation_error', 'sso.passwordSignIn is off but sso.breakGlassAdmins names nobody: name the admin who signs in with a password the day the provider is down (`lectern admin create`).')
  }
}

/** Whether the email is one of `sso.breakGlassAdmins`, in any case (emails are matched without case everywhere). */
export const isBreakGlass = (breakGlassAdmins: readonly string[], email: string): boolean =>
  breakGlassAdmins.some((admin) => admin.trim().toLowerCase() === email.trim().toLowerCase())

/** A safe place to return to: a path of the dashboard, never `//host` or another origin. */
export const returnPath = (asked: string | undefined): string => (asked !== undefined && RETURN_PATH.test(asked) ? asked : '/')

export class SingleSignOn {
  private discovered: { at: number; config: Promise<client.Configuration> } | undefined
  private keys: { uri: string; set: ReturnType<typeof createRemoteJWKSet> } | undefined

  constructor(private readonly options: SsoOptions) {}

  /** The settings it signs in with (the sign-in page's label, password sign-in, the break-glass admins). */
  get settings(): SsoSettings {
    return this.options.settings
  }

  /** Reads the provider's discovery document now: sso_unavailable when it cannot be reached or read. */
  async probe(): Promise<void> {
    await this.configuration()
  }

  get redirectUri(): string {
    return `${this.options.publicUrl}${SSO_CALLBACK_PATH}`
  }

  /** The provider's configuration, discovered once an hour; a failed discovery is tried again at the next sign-in. */
  private configuration(): Promise<client.Configuration> {
    if (this.discovered && Date.now() - this.discovered.at < DISCOVERY_MS) return this.discovered.config
    const { settings, clientSecret } = this.options
    const issuer = new URL(settings.issuer)
    const config = client
      .discovery(
        issuer,
        settings.clientId,
        { [client.clockTolerance]: settings.clockToleranceSeconds },
        clientSecret ? client.ClientSecretBasic(clientSecret) : client.None(),
        // Through the outbound proxy like every other request (src/net/proxy.ts): kept by the configuration for its later calls.
        // http:// is accepted only for a provider on a loopback address (config.ts, issuerText).
        { [client.customFetch]: outboundFetch, ...(issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}) },
      )
      .catch((err: unknown) => {
        this.discovered = undefined
        throw new LecternError('sso_unavailable', `The identity provider at ${settings.issuer} could not be reached or read (${(err as Error).message}); try again, or ask an admin to check sso.issuer.`, {}, { cause: err })
      })
    this.discovered = { at: Date.now(), config }
    return config
  }

  /** The provider's authorization URL to send the browser to, and the flow to keep until it comes back. */
  async start(returnTo: string | undefined): Promise<{ url: string; flow: SsoFlow }> {
    const config = await this.configuration()
    const codeVerifier = client.randomPKCECodeVerifier()
    const flow: SsoFlow = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier, returnTo: returnPath(returnTo), expiresAt: Date.now() + FLOW_MS }
    const scopes = new Set(['openid', ...this.options.settings.scopes])
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: [...scopes].join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    })
    return { url: url.href, flow }
  }

  /**
   * Finishes a sign-in from the provider's answer (the callback URL as the browser asked it):
   * checks state, `iss`, the code with its PKCE verifier, the ID token's signature, audience,
   * times and nonce, then reads the user's claims (the userinfo endpoint adds what the ID token
   * leaves out). Any failure is not_authenticated, with the reason.
   */
  async finish(callback: URL, flow: SsoFlow): Promise<SsoClaims> {
    if (flow.expiresAt < Date.now()) throw new LecternError('not_authenticated', 'The sign-in took longer than 10 minutes; start it again.')
    const config = await this.configuration()
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
    try {
      tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: flow.codeVerifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true })
    } catch (err) {
      throw new LecternError('not_authenticated', `The identity provider's answer was refused: ${(err as Error).message}.`, {}, { cause: err })
    }
    await this.checkSignature(config, tokens.id_token!)
    const idClaims = tokens.claims()!
    let claims: Record<string, unknown> = { ...idClaims }
    if (config.serverMetadata().userinfo_endpoint) {
      // Not skipped when it fails: groups read only there would be lost, and roles and grants with them.
      const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub).catch((err: unknown) => {
        throw new LecternError('sso_unavailable', `The identity provider's userinfo endpoint did not answer (${(err as Error).message}); try again.`, {}, { cause: err })
      })
      claims = { ...info, ...idClaims }
    }
    const email = typeof claims.email === 'string' ? claims.email : undefined
    if (!email) throw new LecternError('not_authenticated', 'The identity provider gave no email for this user; Lectern needs the email claim (scope email).')
    if (claims.email_verified === false) throw new LecternError('not_authenticated', `The identity provider says ${email} is not verified.`)
    const name = typeof claims.name === 'string' ? claims.name : null
    return { subject: `${idClaims.iss} ${idClaims.sub}`, email, emailVerified: claims.email_verified === true, name, groups: groupsOf(claims[this.options.settings.groupsClaim]) }
  }

  /**
   * Checks the ID token's signature against the provider's JWKS (openid-client checks everything
   * else of it, and leaves the signature of a token got over TLS from the token endpoint). A key
   * not in the JWKS as last read makes it read again at once, so a provider that rotates its keys
   * is followed at the first sign-in after; with no cooldown, since only the provider's own token
   * endpoint hands over the tokens checked here.
   */
  private async checkSignature(config: client.Configuration, idToken: string): Promise<void> {
    const jwksUri = config.serverMetadata().jwks_uri
    if (!jwksUri) throw new LecternError('sso_unavailable', 'The identity provider publishes no jwks_uri, so its ID tokens cannot be checked.')
    if (this.keys?.uri !== jwksUri) this.keys = { uri: jwksUri, set: createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: 0, cacheMaxAge: DISCOVERY_MS, [customFetch]: outboundFetch }) }
    try {
      await compactVerify(idToken, this.keys.set, { algorithms: signingAlgorithms(config) })
    } catch (err) {
      throw new LecternError('not_authenticated', `The identity provider's ID token is not signed by a key it publishes: ${(err as Error).message}.`, {}, { cause: err })
    }
  }

  /**
   * The role the provider's groups give: admin in one of `sso.adminGroups`, else member. With no
   * admin groups configured the provider decides nothing: a new user is a member and an existing
   * one keeps their role.
   */
  roleFor(claims: SsoClaims, current: Role | null): Role {
    const { adminGroups } = this.options.settings
    if (adminGroups.length === 0) return current ?? 'member'
    return claims.groups.some((group) => adminGroups.includes(group)) ? 'admin' : 'member'
  }
}

/** At most this many groups of at most this many characters are kept of a user's claim. */
const MAX_GROUPS = 500
const MAX_GROUP_LENGTH = 200

/** A groups claim as a list of names: a list, or one name; anything else is none. */
function groupsOf(value: unknown): string[] {
  const names = typeof value === 'string' ? [value] : Array.isArray(value) ? value : []
  return names.filter((g): g is string => typeof g === 'string' && g !== '' && g.length <= MAX_GROUP_LENGTH).slice(0, MAX_GROUPS)
}

/** The algorithms an ID token may be signed with: the provider's, asymmetric only (JWKS keys are public keys). */
function signingAlgorithms(config: client.Configuration): string[] {
  const advertised = config.serverMetadata().id_token_signing_alg_values_supported ?? ['RS256']
  return advertised.filter((alg) => alg !== 'none' && !alg.startsWith('HS'))
}
