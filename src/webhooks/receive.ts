/**
 * A push webhook delivery, received: proved, recorded, and turned into queued work. The sender is
 * answered at once; what the push changes is read by the ingest jobs it queues and by the GitOps
 * sync it asks for, in the background.
 *
 * The guarantees:
 * - Nothing happens for a delivery that does not prove it holds the webhook secret of the git
 *   connection for the repository's host (src/store/connections.ts): not a job, not a sync.
 * - A delivery is acted on once: its ID is recorded before any work is queued, and a delivery
 *   with an ID seen before is refused (src/store/webhook-deliveries.ts).
 * - A push is not lost to an ingest already running: that job is marked to run again when it ends
 *   (jobs.runAgain), since it may have read the branch before the push.
 * - Refusals are audited as `webhook.refused`, pushes acted on as `webhook.received`; the audit
 *   never holds the secret nor the payload.
 */
import { audit, type AuditContext } from '../audit/log.js'
import { LecternError, isLecternError } from '../errors.js'
import { readGitOpsConfig } from '../gitops/config.js'
import { isGitLibrary, refreshLibrary } from '../jobs/library-jobs.js'
import { LOCAL } from '../library/access.js'
import { parseRepoUrl, type GitSourceKind } from '../sources/repo-url.js'
import { INSTALL_CONNECTIONS } from '../store/connections.js'
import type { Store } from '../store/index.js'
import type { Library } from '../store/libraries.js'
import { parseJsonText } from '../text/json-text.js'
import { deliveryOf, pushOf, repositoryOf, verifyDelivery, type Headers, type NamedRepository, type WebhookProvider } from './providers.js'

export interface WebhookRequest {
  provider: WebhookProvider
  headers: Headers
  /** The body as received: what the signature covers. */
  body: Buffer
  address: string | null
}

/** What became of one library the push names. */
export interface LibraryRefresh {
  libraryId: string
  /** `queued`: a refresh job; `already queued`: one was waiting and will read the push; `after the running job`: the running one runs again when it ends; `failed`: see reason. */
  state: 'queued' | 'already queued' | 'after the running job' | 'failed'
  job: number | null
  reason?: string
}

export interface WebhookOutcome {
  provider: WebhookProvider
  delivery: string
  event: string
  /** `queued` when the push was acted on, `ignored` for another event or a push to no branch. */
  status: 'queued' | 'ignored'
  reason?: string
  repository: string | null
  branch: string | null
  libraries: LibraryRefresh[]
  /** Whether a GitOps sync was asked for: the push is to the manifest's repository and branch. */
  gitops: boolean
}

export interface WebhookOptions {
  /** Asks for a GitOps sync in the background (src/gitops/push-syncs.ts). */
  syncGitOps: () => void
  /** Where a refusal's event that could not be written is told. */
  log: { warn(obj: object, msg: string): void }
}

/** `host/path` of a repository URL (https, ssh or scp-like), lower-case, without `.git`: what a push and a library are matched by. */
export function repositoryKey(url: string): string | undefined {
  const scp = /^[^@/\s]+@([^:/\s]+):(?!\/\/)(.+)$/.exec(url)
  let host: string
  let path: string
  if (scp) {
    host = scp[1]
    path = scp[2]
  } else {
    try {
      const parsed = new URL(url)
      host = parsed.hostname
      path = parsed.pathname
    } catch {
      return undefined
    }
  }
  const clean = path.replace(/^\/+|\/+$/g, '').replace(/\.git$/i, '').toLowerCase()
  return clean === '' ? undefined : `${host.toLowerCase().replace(/^www\./, '')}/${clean}`
}

const refused = (reason: string) => new LecternError('invalid_signature', reason)

export async function receiveWebhook(store: Store, request: WebhookRequest, options: WebhookOptions): Promise<WebhookOutcome> {
  const delivery = deliveryOf(request.provider, request.headers)
  const payload = parseJsonText(request.body.toString('utf8'), 'The delivery')
  const repository = repositoryOf(request.provider, payload)
  const outcome: WebhookOutcome = { provider: request.provider, delivery: delivery.id, event: delivery.event, status: 'ignored', repository: repository?.webUrl ?? null, branch: null, libraries: [], gitops: false }
  if (!repository) {
    if (delivery.isPush) throw new LecternError('validation_error', 'The push names no repository.')
    // Nothing to act on, so nothing to prove: an organization's ping, say.
    return { ...outcome, reason: `a ${delivery.event} event names no repository` }
  }
  let host: string
  try {
    host = new URL(repository.webUrl).host.toLowerCase()
  } catch {
    throw new LecternError('validation_error', "The delivery's repository URL is not a URL.")
  }

  const connection = await store.connections.forGitHost(INSTALL_CONNECTIONS, host)
  const context: AuditContext = { actor: { kind: 'webhook', name: connection ? `${request.provider} via ${connection.name}` : request.provider }, address: request.address }
  const secret = connection ? await store.connections.webhookSecret(INSTALL_CONNECTIONS, connection.name) : null
  if (secret === null || !verifyDelivery(request.provider, request.headers, request.body, secret)) {
    await auditSoftly(store, options, context, repository.webUrl, { provider: request.provider, delivery: delivery.id, event: delivery.event, reason: secret === null ? 'no webhook secret for the host' : 'bad signature' })
    throw refused(`Refused: the delivery is not signed with the webhook secret of a git connection for ${host} (\`lectern connections list\` shows which connections hold one).`)
  }
  if (!delivery.isPush) return { ...outcome, reason: `${delivery.event} events are not acted on; only pushes are` }
  if (!(await store.webhookDeliveries.claim(request.provider, delivery.id))) {
    await auditSoftly(store, options, context, repository.webUrl, { provider: request.provider, delivery: delivery.id, event: delivery.event, reason: 'replayed' })
    throw new LecternError('delivery_replayed', `Refused: delivery ${delivery.id} was received before; a delivery is acted on once.`)
  }

  const push = pushOf(repository, payload)
  if (push.branch === null) {
    return { ...outcome, reason: 'the push is of a tag or deletes a branch' }
  }
  const libraries: LibraryRefresh[] = []
  for (const library of await librariesOf(store, repository, push.branch)) libraries.push(await refresh(store, library))
  const gitops = await isManifestPush(store, repository, push.branch)
  if (gitops) options.syncGitOps()
  await audit(store, context, 'webhook.received', repository.webUrl, {
    provider: request.provider,
    delivery: delivery.id,
    branch: push.branch,
    libraries: libraries.map((l) => `${l.libraryId}: ${l.state}`),
    gitops,
  })
  return { ...outcome, status: 'queued', branch: push.branch, libraries, gitops }
}

/** A refusal is answered even when its event cannot be written (a full disk). */
async function auditSoftly(store: Store, options: WebhookOptions, context: AuditContext, target: string, details: Record<string, unknown>): Promise<void> {
  try {
    await audit(store, context, 'webhook.refused', target, details)
  } catch (err) {
    options.log.warn({ err }, 'the refusal of a webhook delivery could not be written to the audit log')
  }
}

const keysOf = (repository: NamedRepository) => new Set([repository.webUrl, ...repository.cloneUrls].map(repositoryKey).filter((k): k is string => k !== undefined))

/**
 * The git libraries of the install cloned from the repository, on the branch pushed to: their own
 * ref, else the repository's default branch. A push that does not name its default branch refreshes
 * the libraries that follow it too: an unneeded refresh of an unchanged commit is cheap, a missed
 * one leaves docs stale.
 */
async function librariesOf(store: Store, repository: NamedRepository, branch: string): Promise<Library[]> {
  const keys = keysOf(repository)
  const matched: Library[] = []
  for (const library of await store.libraries.list()) {
    if (!isGitLibrary(library) || library.teamPk !== null) continue
    let key: string | undefined
    try {
      key = repositoryKey(parseRepoUrl(library.sourceUrl, library.sourceKind as GitSourceKind).cloneUrl)
    } catch {
      continue
    }
    if (key === undefined || !keys.has(key)) continue
    const followed = typeof library.options.ref === 'string' ? library.options.ref : repository.defaultBranch
    if (followed === null || followed === branch) matched.push(library)
  }
  return matched
}

async function refresh(store: Store, library: Library, attempt = 0): Promise<LibraryRefresh> {
  try {
    const queued = await refreshLibrary(store, { libraryId: library.id }, LOCAL, undefined)
    return { libraryId: library.id, state: 'queued', job: queued.job.pk }
  } catch (err) {
    if (!isLecternError(err) || err.code !== 'library_busy') return { libraryId: library.id, state: 'failed', job: null, reason: err instanceof Error ? err.message : String(err) }
  }
  const version = await store.libraries.version(library.pk, '')
  if (version && (await store.jobs.runAgain(version.pk))) return { libraryId: library.id, state: 'after the running job', job: (await store.jobs.activeForVersion(version.pk))?.pk ?? null }
  const waiting = version && (await store.jobs.activeForVersion(version.pk))
  if (waiting?.state === 'queued') return { libraryId: library.id, state: 'already queued', job: waiting.pk }
  // The running job ended between the refusal and the mark: a refresh can be queued now.
  if (attempt < 2) return await refresh(store, library, attempt + 1)
  return { libraryId: library.id, state: 'failed', job: null, reason: 'its jobs kept starting and ending as the push was handled; refresh it by hand' }
}

async function isManifestPush(store: Store, repository: NamedRepository, branch: string): Promise<boolean> {
  const config = await readGitOpsConfig(store)
  if (!config.enabled || config.repoUrl === '') return false
  let key: string | undefined
  try {
    key = repositoryKey(parseRepoUrl(config.repoUrl).cloneUrl)
  } catch {
    return false
  }
  const followed = config.branch !== '' ? config.branch : repository.defaultBranch
  return key !== undefined && keysOf(repository).has(key) && (followed === null || followed === branch)
}
