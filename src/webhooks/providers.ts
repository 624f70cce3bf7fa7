/**
 * What each git host's push webhook sends, read strictly: the headers that name the event and
 * the delivery, how the sender proves it holds the secret, and the push itself. GitHub (and
 * GitHub Enterprise Server) and Gitea sign the body with HMAC-SHA256; GitLab sends the secret
 * itself as a token. Every comparison is constant-time.
 *
 * References: GitHub "Validating webhook deliveries" and the push event; GitLab "Webhooks"
 * (X-Gitlab-Token, X-Gitlab-Event-UUID) and the push event; Gitea "Webhooks" (X-Gitea-Signature).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import { LecternError } from '../errors.js'

export const WEBHOOK_PROVIDERS = ['github', 'gitlab', 'gitea'] as const
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number]

export type Headers = Record<string, string | string[] | undefined>

/** A delivery as its headers name it. */
export interface Delivery {
  provider: WebhookProvider
  /** The sender's ID of this delivery, unique per delivery: what a replay repeats. */
  id: string
  /** The event, as the sender names it (`push`, `Push Hook`, `ping`, ...). */
  event: string
  isPush: boolean
}

/** A repository as a delivery names it: its web address, and the other URLs it is cloned by. */
export interface NamedRepository {
  webUrl: string
  cloneUrls: string[]
  defaultBranch: string | null
}

/** A push to a branch; a tag push or a deleted branch is no push to refresh from. */
export interface Push {
  repository: NamedRepository
  /** The branch pushed to, or null for a tag or a deletion. */
  branch: string | null
}

interface ProviderRules {
  event: string
  delivery: string[]
  push: string
  /** Whether the delivery proves it holds `secret`. */
  verify(headers: Headers, body: Buffer, secret: string): boolean
  repository(payload: unknown): NamedRepository | undefined
}

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name]
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined
}

const equalText = (given: string, expected: string): boolean => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  // Lengths differ only when the guess is wrong; compare anyway so the time says nothing.
  return timingSafeEqual(a.length === b.length ? a : b, b) && a.length === b.length
}

const hmacHex = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex')

/** A check of an HMAC-SHA256 of the body, hex, in `name` after `prefix`: GitHub's and Gitea's. */
const signedBody =
  (name: string, prefix: string) =>
  (headers: Headers, body: Buffer, secret: string): boolean => {
    const signature = header(headers, name)
    return signature !== undefined && equalText(signature.toLowerCase(), `${prefix}${hmacHex(secret, body)}`)
  }

const Url = z.string().max(2048)
const GitHubLike = z.object({
  repository: z.object({ html_url: Url, clone_url: Url.optional(), ssh_url: Url.optional(), default_branch: z.string().max(255).optional() }),
})
const GitLab = z.object({
  project: z.object({ web_url: Url, git_http_url: Url.optional(), git_ssh_url: Url.optional(), default_branch: z.string().max(255).nullish() }),
})
const Ref = z.object({ ref: z.string().max(1024), deleted: z.boolean().optional(), after: z.string().max(64).optional() })

const githubLike = (payload: unknown): NamedRepository | undefined => {
  const parsed = GitHubLike.safeParse(payload)
  if (!parsed.success) return undefined
  const { html_url, clone_url, ssh_url, default_branch } = parsed.data.repository
  return { webUrl: html_url, cloneUrls: [clone_url, ssh_url].filter((u): u is string => u !== undefined), defaultBranch: default_branch ?? null }
}

const RULES: Record<WebhookProvider, ProviderRules> = {
  github: {
    event: 'x-github-event',
    delivery: ['x-github-delivery'],
    push: 'push',
    verify: signedBody('x-hub-signature-256', 'sha256='),
    repository: githubLike,
  },
  gitea: {
    event: 'x-gitea-event',
    delivery: ['x-gitea-delivery'],
    push: 'push',
    verify: signedBody('x-gitea-signature', ''),
    repository: githubLike,
  },
  gitlab: {
    event: 'x-gitlab-event',
    // Idempotency-Key is GitLab 17's; X-Gitlab-Event-UUID is older and still sent.
    delivery: ['x-gitlab-event-uuid', 'idempotency-key'],
    push: 'Push Hook',
    verify: (headers, _body, secret) => {
      const token = header(headers, 'x-gitlab-token')
      return token !== undefined && equalText(token, secret)
    },
    repository: (payload) => {
      const parsed = GitLab.safeParse(payload)
      if (!parsed.success) return undefined
      const { web_url, git_http_url, git_ssh_url, default_branch } = parsed.data.project
      return { webUrl: web_url, cloneUrls: [git_http_url, git_ssh_url].filter((u): u is string => u !== undefined), defaultBranch: default_branch ?? null }
    },
  },
}

/** The event and delivery the headers name; a delivery without them is not from the provider. */
export function deliveryOf(provider: WebhookProvider, headers: Headers): Delivery {
  const rules = RULES[provider]
  const event = header(headers, rules.event)
  const id = rules.delivery.map((name) => header(headers, name)).find((value) => value !== undefined)
  if (event === undefined || id === undefined) {
    throw new LecternError('validation_error', `A ${provider} webhook delivery names its event and delivery in ${rules.event} and ${rules.delivery[0]}; this request has ${event === undefined ? `no ${rules.event}` : `no ${rules.delivery[0]}`}.`)
  }
  if (id.length > 200 || event.length > 100) throw new LecternError('validation_error', `The delivery's ${rules.event} or ${rules.delivery[0]} is too long to be one a git host sends.`)
  return { provider, id, event, isPush: event === rules.push }
}

/** The repository a delivery names, when it names one (a push always does; an organization's ping does not). */
export function repositoryOf(provider: WebhookProvider, payload: unknown): NamedRepository | undefined {
  return RULES[provider].repository(payload)
}

export function verifyDelivery(provider: WebhookProvider, headers: Headers, body: Buffer, secret: string): boolean {
  return RULES[provider].verify(headers, body, secret)
}

/** The push a push event's payload describes. */
export function pushOf(repository: NamedRepository, payload: unknown): Push {
  const parsed = Ref.safeParse(payload)
  if (!parsed.success) throw new LecternError('validation_error', 'The push names no ref.')
  const { ref, deleted, after } = parsed.data
  const gone = deleted === true || (after !== undefined && /^0+$/.test(after))
  const branch = ref.startsWith('refs/heads/') && !gone ? ref.slice('refs/heads/'.length) : null
  return { repository, branch }
}
