/**
 * A push webhook delivery, received: proved, recorded, and turned into queued work. The sender is
 * answered at once; what the push changes is read by the ingest jobs it queues and by the GitOps
 * sync it asks for, in the background.
 *
 * The guarantees:
 * - Nothing happens for a delivery that does not prove it holds the webhook secret of a git
 *   connection (src/store/connections.ts): not a job, not a sync, not even a read of its body.
 *   A proved delivery acts only on repositories of that connection's host.
 * - A delivery is acted on once: its ID and its body's hash are recorded before any work is
 *   queued, and a delivery with either seen before is refused (src/store/webhook-deliveries.ts);
 *   when its work fails, the record is dropped so the sender's redelivery is acted on.
 * - A push is not lost to an ingest already running: that job is marked to run again when it ends
 *   (jobs.runAgain), since it may have read the branch before the push.
 * - Refusals are audited as `webhook.refused` (those of unproven deliveries at most once a minute
 *   per provider and reason), pushes acted on as `webhook.received`; the audit never holds the
 *   secret nor the payload.
 */
import { createHash } from 'node:crypto'
import { audit, type AuditContext } from '../audit/log.js'
import { LecternError, isLecternError } from '../errors.js'
import { readGitOpsConfig } from '../gitops/config.js'
import { isGitLibrary, refreshLibrary } from '../jobs/library-jobs.js'
import { LOCAL } from '../library/access.js'
import { parseRepoUrl, type GitSourceKind } from '../sources/repo-url.js'
import { hostOf, INSTALL_CONNECTIONS, type Connection } from '../store/connections.js'
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
  /** `queued` when the push was acted on; `ignored` for another event, a push to no branch, or one nobody follows. */
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

/** `host[:port]/path` of a repository URL (https, ssh or scp-like), lower-case, without `.git` or a default port: what a push and a library are matched by. */
export function repositoryKey(url: string): string | undefined {
  const located = locate(url)
  if (!located) return undefined
  const clean = located.path.replace(/^\/+|\/+$/g, '').replace(/\.git$/i, '').toLowerCase()
  return clean === '' ? undefined : `${located.host}/${clean}`
}

/** The host (with a port other than the scheme's default) and path of a repository URL. */
function locate(url: string): { hostname: string; host: string; path: string } | undefined {
  const scp = /^[^@/\s]+@([^:/\s]+):(?!\/\/)(.+)$/.exec(url)
  if (scp) return { hostname: scp[1].toLowerCase(), host: scp[1].toLowerCase(), path: scp[2] }
  try {
    const parsed = new URL(url)
    const hostname = parsed.hostname.toLowerCase().replace(/^www\./, '')
    const port = parsed.port === '' || (parsed.protocol === 'ssh:' && parsed.port === '22') ? '' : `:${parsed.port}`
    return { hostname, host: `${hostname}${port}`, path: parsed.pathname }
  } catch {
    return undefined
  }
}

/** Refusals of unproven deliveries are written at most once a minute per provider and reason, with how many were not. */
const REFUSAL_EVERY_MS = 60_000
const refusalsWritten = new WeakMap<Store, Map<string, { at: number; unwritten: number }>>()

export async function receiveWebhook(store: Store, request: WebhookRequest, options: WebhookOptions): Promise<WebhookOutcome> {
  const delivery = deliveryOf(request.provider, request.headers)
  const anonymous: AuditContext = { actor: { kind: 'webhook', name: request.provider }, address: request.address }
  // Proved before it is read: nothing in an unproven body is parsed, nor decides what is checked.
  const connection = await signer(store, request)
  if (!connection) {
    await auditRefusal(store, options, anonymous, null, { provider: request.provider, event: delivery.event, reason: 'bad signature' })
    throw new LecternError('invalid_signature', 'Refused: the delivery is not signed with the webhook secret of any git connection (`lectern connections list` shows which connections hold one).')
  }
  const context: AuditContext = { actor: { kind: 'webhook', name: `${request.provider} via ${connection.name}` }, address: request.address }
  const payload = parseJsonText(request.body.toString('utf8'), 'The delivery')
  const named = repositoryOf(request.provider, payload)
  const outcome: WebhookOutcome = { provider: request.provider, delivery: delivery.id, event: delivery.event, status: 'ignored', repository: named?.webUrl ?? null, branch: null, libraries: [], gitops: false }
  if (!named) {
    if (delivery.isPush) throw new LecternError('validation_error', 'The push names no repository.')
    return { ...outcome, reason: `a ${delivery.event} event names no repository` }
  }
  // The secret proves the sender is the connection's host: the delivery may speak of that host's repositories only.
  const repository = onHostOf(named, connection)
  if (!repository) {
    await auditRefusal(store, options, context, null, { provider: request.provider, event: delivery.event, reason: `names a repository on another host than ${hostOf(connection.baseUrl)}` })
    throw new LecternError('invalid_signature', `Refused: the delivery is signed with the webhook secret of "${connection.name}" (${hostOf(connection.baseUrl)}) but names a repository on another host.`)
  }
  if (!delivery.isPush) return { ...outcome, reason: `${delivery.event} events are not acted on; only pushes are` }
  // Claimed by its ID and by its signed body, so neither a resent delivery nor its body under a new ID is acted on twice.
  const claims = [`delivery:${delivery.id}`, `body:${createHash('sha256').update(request.body).digest('hex')}`]
  if (!(await store.webhookDeliveries.claim(request.provider, claims))) {
    await auditRefusal(store, options, context, repository.webUrl, { provider: request.provider, delivery: delivery.id, reason: 'replayed' })
    throw new LecternError('delivery_replayed', `Refused: delivery ${delivery.id} (or the same push under another ID) was received before; a delivery is acted on once.`)
  }
  try {
    const push = pushOf(repository, payload)
    if (push.branch === null) return { ...outcome, reason: 'the push is of a tag or deletes a branch' }
    const libraries: LibraryRefresh[] = []
    for (const library of await librariesOf(store, repository, push.branch)) libraries.push(await refresh(store, library))
    const gitops = await isManifestPush(store, repository, push.branch)
    if (gitops) options.syncGitOps()
    if (libraries.length === 0 && !gitops) return { ...outcome, branch: push.branch, reason: `no library follows ${repository.webUrl} at ${push.branch}, and it is not the GitOps manifest's` }
    try {
      await audit(store, context, 'webhook.received', repository.webUrl, { provider: request.provider, delivery: delivery.id, branch: push.branch, libraries: libraries.map((l) => `${l.libraryId}: ${l.state}`), gitops })
    } catch (err) {
      // The work is queued: an event that cannot be written (a full disk) must not make the sender retry it.
      options.log.warn({ err }, 'a push webhook was acted on but could not be written to the audit log')
    }
    return { ...outcome, status: 'queued', branch: push.branch, libraries, gitops }
  } catch (err) {
    // Nothing was queued: the sender's redelivery of this delivery must be acted on.
    await store.webhookDeliveries.release(request.provider, claims)
    throw err
  }
}

/** The git connection whose webhook secret the delivery proves it holds; every such connection is tried, whatever the delivery names. */
async function signer(store: Store, request: WebhookRequest): Promise<Connection | undefined> {
  let found: Connection | undefined
  for (const connection of (await store.connections.list(INSTALL_CONNECTIONS, 'git')).filter((c) => c.webhook)) {
    const secret = await store.connections.webhookSecret(INSTALL_CONNECTIONS, connection.name)
    // Every secret is checked, so the time taken does not say which one matched.
    if (secret !== null && verifyDelivery(request.provider, request.headers, request.body, secret)) found ??= connection
  }
  return found
}

/**
 * The repository as the delivery names it, keeping only the URLs on the connection's host: its web
 * address must be there (on the same port, for an https connection; an SSH connection names its
 * SSH port, so there the name decides), and clone URLs on other hosts are dropped. Undefined when
 * the web address is elsewhere.
 */
function onHostOf(repository: NamedRepository, connection: Connection): NamedRepository | undefined {
  const own = locate(connection.baseUrl)
  const web = locate(repository.webUrl)
  const ssh = connection.baseUrl.startsWith('ssh://')
  if (!own || !web || web.hostname !== own.hostname || (!ssh && web.host !== own.host)) return undefined
  return { ...repository, cloneUrls: repository.cloneUrls.filter((url) => locate(url)?.hostname === own.hostname) }
}

async function auditRefusal(store: Store, options: WebhookOptions, context: AuditContext, target: string | null, details: Record<string, unknown>): Promise<void> {
  const key = `${String(details.provider)}|${String(details.reason)}`
  const written = refusalsWritten.get(store) ?? new Map<string, { at: number; unwritten: number }>()
  refusalsWritten.set(store, written)
  const last = written.get(key)
  const now = Date.now()
  if (last && now - last.at < REFUSAL_EVERY_MS) {
    last.unwritten++
    return
  }
  written.set(key, { at: now, unwritten: 0 })
  const event = typeof details.event === 'string' ? details.event.slice(0, 100) : details.event
  await auditSoftly(store, options, context, target, { ...details, event, ...(last?.unwritten ? { alikeNotRecorded: last.unwritten } : {}) })
}

/** A refusal is answered even when its event cannot be written (a full disk). */
async function auditSoftly(store: Store, options: WebhookOptions, context: AuditContext, target: string | null, details: Record<string, unknown>): Promise<void> {
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
