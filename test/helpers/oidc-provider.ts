/**
 * A real OpenID provider on loopback: `oidc-provider` (the certified implementation), with one
 * confidential client for Lectern, accounts with groups, and the login page a person would fill
 * in replaced by `signInAs`: the next interaction signs in that account and grants the scopes asked.
 * Its signing keys can be rotated (`rotateKeys`): the provider restarts at the same issuer with a
 * new key, as a real one's rotation looks to a relying party.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider, { type Configuration } from 'oidc-provider'

export interface Account {
  email: string
  name: string
  groups: string[]
  /** The email_verified claim: true by default; null leaves it out, as many providers do. */
  emailVerified?: boolean | null
}

export interface TestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Who the next login interaction signs in, by subject. */
  signInAs(subject: string): void
  accounts: Map<string, Account>
  /** Restarts the provider with a new signing key (the old one is gone from its JWKS). */
  rotateKeys(): Promise<void>
  /** The `kid` of the key it signs with now. */
  keyId(): string
  /** From now on its JWKS endpoint answers another key than the one it signs with, as an attacker between it and Lectern would. */
  publishOtherKey(): void
  close(): Promise<void>
}

function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(6).toString('hex'), alg: 'RS256', use: 'sig' }
}

export async function startOidcProvider(options: { redirectUri: string; accounts: Record<string, Account> }): Promise<TestProvider> {
  const accounts = new Map(Object.entries(options.accounts))
  const clientSecret = randomBytes(24).toString('hex')
  const cookieKeys = [randomBytes(16).toString('hex')]
  let next: string | undefined
  let published: object | undefined
  let key = signingKey()

  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const configuration = (): Configuration => ({
    clients: [{ client_id: 'lectern', client_secret: clientSecret, redirect_uris: [options.redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
    jwks: { keys: [key] as never },
    cookies: { keys: cookieKeys },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub)
      if (!account) return undefined
      const verified = account.emailVerified === null ? {} : { email_verified: account.emailVerified ?? true }
      return { accountId: sub, claims: () => ({ sub, email: account.email, ...verified, name: account.name, groups: account.groups }) }
    },
  })
  let provider = new Provider(issuer, configuration())

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (published && req.url === '/jwks') {
      res.setHeader('content-type', 'application/jwk-set+json')
      res.end(JSON.stringify(published))
      return
    }
    if (!req.url?.startsWith('/interaction/')) {
      void provider.callback()(req, res)
      return
    }
    void (async () => {
      const details = await provider.interactionDetails(req, res)
      if (details.prompt.name === 'login') {
        if (!next) throw new Error('the test named nobody to sign in (signInAs)')
        return provider.interactionFinished(req, res, { login: { accountId: next } }, { mergeWithLastSubmission: false })
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string })
      grant.addOIDCScope(String(details.params.scope))
      const grantId = await grant.save()
      return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true })
    })().catch((err: unknown) => {
      res.statusCode = 500
      res.end(String(err))
    })
  })

  return {
    issuer,
    clientId: 'lectern',
    clientSecret,
    accounts,
    signInAs: (subject) => {
      next = subject
    },
    async rotateKeys() {
      key = signingKey()
      provider = new Provider(issuer, configuration())
    },
    keyId: () => key.kid,
    publishOtherKey: () => {
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...other } = signingKey() as Record<string, unknown>
      published = { keys: [{ ...other, kid: key.kid }] }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
