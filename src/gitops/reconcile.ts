/**
 * A GitOps sync: read the manifest at the head of its repository, and make the install match it.
 * For each entry:
 * - create its library when there is none;
 * - re-index it when GitOps added it and the entry changed since (its fingerprint), or its last
 *   ingest failed;
 * - leave it when it matches;
 * - skip it when a library of that ID was added by hand: GitOps never takes one over.
 * With pruning on, the libraries GitOps added that the manifest no longer lists are removed; a
 * library added by hand never is.
 *
 * What it guarantees: a manifest that cannot be read or is not valid changes nothing
 * (manifest.ts checks all of it before the first change); an entry that fails (a source that
 * cannot be reached, a library being indexed) is reported and the others go on. A sync whose
 * manifest commit and configuration are those of the last complete sync does nothing, unless
 * forced; a sync with failed entries is not complete, so the next one tries them again. A dry
 * run reads and plans the same way and changes nothing.
 */
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { audit, SYSTEM, type AuditContext } from '../audit/log.js'
import { isLecternError, LecternError } from '../errors.js'
import { failedVersionOf } from '../jobs/submit.js'
import { LOCAL } from '../library/access.js'
import { removeLibrary, type ForgetSet } from '../library/admin.js'
import { cloneRepo } from '../sources/git.js'
import { gitSsh, gitToken } from '../sources/git-token.js'
import { parseRepoUrl } from '../sources/repo-url.js'
import { INSTALL_CONNECTIONS } from '../store/connections.js'
import type { Store } from '../store/index.js'
import { SETTING_KEYS } from '../store/settings.js'
import { manifestPath, readGitOpsConfig, type GitOpsConfig } from './config.js'
import { parseManifest, type ManifestEntry, type ManifestType } from './manifest.js'
import { desiredSource, type DesiredSource } from './sources.js'

/** A manifest larger than this is refused: it is a list of sources, not a document. */
const MAX_MANIFEST_BYTES = 1024 * 1024

export const SYNC_TRIGGERS = ['manual', 'cli', 'start', 'schedule', 'webhook'] as const
export const SYNC_ACTIONS = ['create', 'update', 'unchanged', 'skip', 'prune', 'fail'] as const
export type SyncAction = (typeof SYNC_ACTIONS)[number]

export interface SyncEntry {
  libraryId: string
  type: ManifestType | null
  action: SyncAction
  /** Why it was skipped or failed, or what was queued. */
  reason?: string
  jobId?: number
}

export interface SyncResult {
  at: string
  trigger: SyncTrigger
  dryRun: boolean
  /** The manifest's commit. */
  commit: string
  /** Nothing to do: the manifest's commit and the configuration are those of the last complete sync. */
  upToDate: boolean
  created: number
  updated: number
  unchanged: number
  skipped: number
  pruned: number
  failed: number
  entries: SyncEntry[]
}

interface LastSync {
  /** The commit and configuration of the last complete sync, which a sync with the same skips. */
  key: string | null
  result: SyncResult | null
  error: { at: string; message: string } | null
}

/** What started a sync. */
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number]

export interface SyncOptions {
  trigger: SyncTrigger
  dryRun?: boolean
  /** Sync although the commit is unchanged. */
  force?: boolean
  forget?: ForgetSet
}

/**
 * Runs a sync, one at a time across every process of the install (a lock in the store): a sync
 * asked while another runs is refused with sync_running, never run beside it.
 */
export async function syncGitOps(store: Store, context: AuditContext, options: SyncOptions): Promise<SyncResult> {
  const refusal = () => new LecternError('sync_running', 'A GitOps sync is already running (in this process or another replica); try again when it ends.')
  // The store's lock spans the processes (a lock file on SQLite, an advisory lock on PostgreSQL); this set answers a second sync of this process at once.
  if (syncing.has(store)) throw refusal()
  syncing.add(store)
  try {
    const turn = await store.exclusively('gitops-sync', () => syncNow(store, context, options))
    if (!turn.ran) throw refusal()
    return turn.value
  } finally {
    syncing.delete(store)
  }
}

const syncing = new WeakSet<Store>()

async function syncNow(store: Store, context: AuditContext, options: SyncOptions): Promise<SyncResult> {
  const config = await readGitOpsConfig(store)
  if (config.repoUrl === '') throw new LecternError('validation_error', 'GitOps has no manifest repository: set one with `lectern gitops config --repo <url>` (or PUT /api/gitops/config).')
  let manifest: { commit: string; entries: ReturnType<typeof parseManifest> }
  let planned: Array<DesiredSource | SyncEntry>
  try {
    manifest = await readManifest(store, config)
    planned = await plannedSources(store, manifest.entries)
  } catch (err) {
    if (!options.dryRun && isLecternError(err)) {
      await audit(store, context, 'gitops.failed', config.repoUrl, { trigger: options.trigger, reason: err.message })
      await recordLast(store, (last) => ({ ...last, error: { at: new Date().toISOString(), message: err.message } }))
    }
    throw err
  }
  const key = JSON.stringify([manifest.commit, config])
  const last = await readLast(store)
  const result: SyncResult = { at: new Date().toISOString(), trigger: options.trigger, dryRun: options.dryRun === true, commit: manifest.commit, upToDate: false, created: 0, updated: 0, unchanged: 0, skipped: 0, pruned: 0, failed: 0, entries: [] }
  if (!options.force && last.key === key) return { ...result, upToDate: true }

  const desired = planned.filter((p): p is DesiredSource => 'submit' in p)
  const managed = new Map((await store.gitops.managed()).map((m) => [m.libraryId, m]))
  for (const item of planned) result.entries.push('submit' in item ? await applyEntry(store, item, managed.get(item.libraryId), result.dryRun) : item)
  const listed = new Set(desired.map((d) => d.libraryId))
  // An entry that could not be read may be the one that makes a library: none is pruned then.
  const unread = planned.length > desired.length
  for (const [libraryId] of [...managed].filter(([id]) => !listed.has(id))) {
    if (!config.prune) continue
    if (unread) result.entries.push({ libraryId, type: null, action: 'skip', reason: 'not pruned: an entry of the manifest failed, and it may be the one that makes this library' })
    else result.entries.push(await pruneLibrary(store, libraryId, result.dryRun, options.forget))
  }
  for (const entry of result.entries) result[COUNTS[entry.action]] += 1
  if (!result.dryRun) {
    await audit(store, context, 'gitops.synced', config.repoUrl, { trigger: options.trigger, commit: manifest.commit, created: result.created, updated: result.updated, pruned: result.pruned, skipped: result.skipped, failed: result.failed })
    await recordLast(store, () => ({ key: result.failed === 0 ? key : null, result, error: null }))
  }
  return result
}

/**
 * Each entry, in the manifest's order, as the library it makes, or why it cannot be submitted;
 * two entries that make one library make the manifest invalid.
 */
async function plannedSources(store: Store, entries: ManifestEntry[]): Promise<Array<DesiredSource | SyncEntry>> {
  const planned: Array<DesiredSource | SyncEntry> = []
  for (const entry of entries) {
    try {
      planned.push(await desiredSource(store, entry))
    } catch (err) {
      if (!isLecternError(err)) throw err
      planned.push({ libraryId: entry.url, type: entry.type, action: 'fail', reason: `${entry.at}: ${err.message}` })
    }
  }
  const places = new Map<string, string[]>()
  for (const { libraryId, entry } of planned.filter((p): p is DesiredSource => 'submit' in p)) places.set(libraryId, [...(places.get(libraryId) ?? []), entry.at])
  const twice = [...places].filter(([, at]) => at.length > 1).map(([id, at]) => `${at.join(' and ')} both make ${id}`)
  if (twice.length > 0) throw new LecternError('validation_error', `The manifest is not valid, so nothing was changed: ${twice.join('; ')}.`)
  return planned
}

const COUNTS = { create: 'created', update: 'updated', unchanged: 'unchanged', skip: 'skipped', prune: 'pruned', fail: 'failed' } as const

async function applyEntry(store: Store, source: DesiredSource, managed: { fingerprint: string } | undefined, dryRun: boolean): Promise<SyncEntry> {
  const { libraryId, entry } = source
  const library = await store.libraries.byId(libraryId)
  const base = { libraryId, type: entry.type }
  if (library && !managed) return { ...base, action: 'skip', reason: `${libraryId} was added by hand; GitOps leaves it alone` }
  const failed = library ? (await failedVersionOf(store, library)) !== undefined : false
  const action: SyncAction = !library ? 'create' : managed!.fingerprint !== entry.fingerprint || failed ? 'update' : 'unchanged'
  if (action === 'unchanged' || dryRun) return { ...base, action }
  try {
    const submitted = await source.submit(action === 'update' && !failed)
    const made = await store.libraries.byId(libraryId)
    if (made) await store.gitops.manage(made.pk, entry.fingerprint)
    return { ...base, action, jobId: submitted.job.pk, reason: submitted.message }
  } catch (err) {
    if (!isLecternError(err)) throw err
    return { ...base, action: 'fail', reason: `${entry.at}: ${err.message}` }
  }
}

async function pruneLibrary(store: Store, libraryId: string, dryRun: boolean, forget: ForgetSet | undefined): Promise<SyncEntry> {
  const base = { libraryId, type: null }
  if (dryRun) return { ...base, action: 'prune' }
  try {
    await removeLibrary(store, libraryId, LOCAL, forget)
    return { ...base, action: 'prune' }
  } catch (err) {
    if (!isLecternError(err)) throw err
    return { ...base, action: 'fail', reason: err.message }
  }
}

/** Clones the manifest repository's head (shallow, into a temporary directory removed after) and reads the manifest. */
async function readManifest(store: Store, config: GitOpsConfig): Promise<{ commit: string; entries: ReturnType<typeof parseManifest> }> {
  const repo = parseRepoUrl(config.repoUrl)
  const relative = manifestPath(config.path)
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lectern-gitops-'))
  try {
    const token = await gitToken(store, undefined, repo.host, INSTALL_CONNECTIONS)
    const ssh = await gitSsh(store, repo.cloneUrl, repo.host, INSTALL_CONNECTIONS)
    const clone = await cloneRepo({ cloneUrl: repo.cloneUrl, destDir: path.join(dir, 'repo'), ref: config.branch || undefined, token, ssh })
    const root = await fs.realpath(path.join(dir, 'repo'))
    const file = await fs.realpath(path.join(root, relative)).catch(() => undefined)
    if (!file) throw new LecternError('validation_error', `The manifest repository has no file ${relative} at ${clone.branch} (commit ${clone.commit.slice(0, 12)}).`)
    // A symbolic link may not lead out of the repository.
    if (!file.startsWith(`${root}${path.sep}`)) throw new LecternError('validation_error', `${relative} in the manifest repository is a link that leads out of the repository.`)
    const stat = await fs.stat(file)
    if (!stat.isFile()) throw new LecternError('validation_error', `${relative} in the manifest repository is not a file.`)
    if (stat.size > MAX_MANIFEST_BYTES) throw new LecternError('validation_error', `${relative} is ${stat.size} bytes, over the manifest's ${MAX_MANIFEST_BYTES}.`)
    return { commit: clone.commit, entries: parseManifest(await fs.readFile(file, 'utf8')) }
  } finally {
    await fs.rm(dir, { recursive: true, force: true })
  }
}

async function readLast(store: Store): Promise<LastSync> {
  return (await store.settings.get<LastSync>(SETTING_KEYS.gitopsLastSync)) ?? { key: null, result: null, error: null }
}

async function recordLast(store: Store, next: (last: LastSync) => LastSync): Promise<void> {
  await store.settings.set(SETTING_KEYS.gitopsLastSync, next(await readLast(store)))
}

export interface GitOpsStatus {
  config: GitOpsConfig
  /** The libraries GitOps added, with when each was last synced. */
  managed: Array<{ libraryId: string; syncedAt: string }>
  lastSync: SyncResult | null
  /** The last sync that failed before changing anything, when it came after the last sync that ran. */
  lastError: { at: string; message: string } | null
}

/** The configuration, the libraries GitOps manages and the last sync's result (GET /api/gitops/status, `lectern gitops status`). */
export async function gitOpsStatus(store: Store): Promise<GitOpsStatus> {
  const last = await readLast(store)
  return {
    config: await readGitOpsConfig(store),
    managed: (await store.gitops.managed()).map(({ libraryId, syncedAt }) => ({ libraryId, syncedAt })),
    lastSync: last.result,
    lastError: last.error,
  }
}

/** What an automatic sync came to: done (or nothing to do), left to a sync already running, or failed (logged). */
export type AutomaticOutcome = 'done' | 'busy' | 'failed'

/**
 * A sync nobody asked for (at start, on the schedule, for a push), when automatic syncs are on:
 * one replica at a time (the others find the manifest unchanged after it), its outcome logged
 * rather than thrown.
 */
export async function automaticSync(
  store: Store,
  trigger: 'start' | 'schedule' | 'webhook',
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void },
  forget?: ForgetSet,
): Promise<AutomaticOutcome> {
  try {
    if (!(await readGitOpsConfig(store)).enabled) return 'done'
    const result = await syncGitOps(store, SYSTEM, { trigger, forget })
    log.info({ trigger, commit: result.commit, upToDate: result.upToDate, created: result.created, updated: result.updated, pruned: result.pruned, failed: result.failed }, 'GitOps sync done')
    return 'done'
  } catch (err) {
    if (isLecternError(err) && err.code === 'sync_running') {
      log.info({ trigger }, 'GitOps sync left to the one already running')
      return 'busy'
    }
    log.warn({ err, trigger }, 'GitOps sync failed; nothing was changed (lectern gitops status says why)')
    return 'failed'
  }
}
