/**
 * Runs backups, one at a time: within a process a manual run and a scheduled run share one
 * mutex, and across processes (server and `lectern backup`) the backup lock, an OS lock that dies
 * with its process. A run writes the archive, delivers it, and only then prunes by the retention
 * rule; a failed run prunes nothing. The last result is kept in the settings table so every
 * process reports the same; when that write fails (a full data volume) it is kept in memory, so
 * the failure and its reason are still reported. A run whose process died is reported as
 * interrupted, never as running.
 */
import fsp from 'node:fs/promises'
import path from 'node:path'
import { audit, cliContext, SYSTEM, type AuditContext } from '../audit/log.js'
import { asDiskFull, likelyCause } from '../install/disk-full.js'
import { isLecternError, LecternError, type ErrorCode } from '../errors.js'
import type { Store } from '../store/index.js'
import { SETTING_KEYS } from '../store/settings.js'
import { createArchive, type Progress } from './archive.js'
import { openDestination, readBackupConfig } from './config.js'
import { archiveDirError, prepareArchiveDir } from './destinations.js'
import { acquireBackupLock, backupInOtherProcess, interruptedBackup } from './lock.js'
import type { Manifest } from './manifest.js'
import { pruneArchives, type PruneResult } from './retention.js'

const LAST_RESULT_SETTING = SETTING_KEYS.backupLastResult
const SCHEDULED_SLOT_SETTING = SETTING_KEYS.backupScheduledSlot

/** The minute a schedule fires in, as every replica names it (their clocks agree to well within a minute). */
export const minuteOf = (at: Date): string => new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString()

export type Trigger = 'manual' | 'schedule' | 'cli'

export interface BackupResult {
  ok: boolean
  trigger: Trigger
  startedAt: string
  finishedAt: string
  durationMs: number
  destination: string
  name?: string
  size?: number
  partialLibraries?: string[]
  pruned?: PruneResult
  /** Why a failed run failed: the catalogue code (e.g. `disk_full`) and its message. */
  code?: ErrorCode
  error?: string
  /** The process running it stopped (killed, crashed) before the run ended. */
  interrupted?: boolean
  /** Said of a written archive that is not safe where it is: inside the data directory it backs up. */
  warning?: string
}

export interface BackupStatus {
  running: boolean
  startedAt: string | null
  trigger: Trigger | string | null
  last: BackupResult | null
}

export interface RunOptions {
  trigger: Trigger
  /** `--to DIR|s3://bucket/prefix` instead of the configured destination (retention still applies). */
  target?: string
  onProgress?: Progress
  /** Who asked, for the audit log: a scheduled run is Lectern's own, a CLI run its user's. */
  context?: AuditContext
}

interface Log {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export class BackupRunner {
  private current: { startedAt: string; trigger: Trigger; done: Promise<unknown> } | null = null
  /** A result the settings table could not take (full disk); newer than the stored one. */
  private unsaved: BackupResult | null = null

  constructor(
    private readonly store: Store,
    private readonly log: Log,
  ) {}

  /** This process's run, else one another process runs (it holds the backup lock). */
  async status(): Promise<BackupStatus> {
    const other = this.current ? undefined : backupInOtherProcess(this.store.paths)
    return {
      running: this.current !== null || other !== undefined,
      startedAt: this.current?.startedAt ?? other?.startedAt ?? null,
      trigger: this.current?.trigger ?? other?.trigger ?? null,
      last: await this.lastResult(),
    }
  }

  /** The newest of: the stored result, one not stored for lack of space, a run found dead. */
  private async lastResult(): Promise<BackupResult | null> {
    const candidates = [await this.store.settings.get<BackupResult>(LAST_RESULT_SETTING), this.unsaved, interruptedResult(this.store)]
    return candidates.filter((r): r is BackupResult => !!r).sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0] ?? null
  }

  private async record(result: BackupResult): Promise<void> {
    try {
      await this.store.settings.set(LAST_RESULT_SETTING, result)
      this.unsaved = null
    } catch (err) {
      this.unsaved = result
      this.log.warn({ err }, 'could not store the backup result; it is kept in memory')
    }
  }

  /**
   * Starts a run and returns at once with its start time and completion promise; throws
   * `backup_running` (with the running one's start time) when one is already under way.
   */
  async start(options: RunOptions): Promise<{ startedAt: string; done: Promise<BackupResult> }> {
    if (this.current) {
      throw new LecternError('backup_running', `A backup started at ${this.current.startedAt} is still running.`, { startedAt: this.current.startedAt })
    }
    const startedAt = new Date().toISOString()
    // Read before the lock is taken: taking it replaces the dead run's holder information.
    const interrupted = interruptedResult(this.store)
    const release = acquireBackupLock(this.store.paths, startedAt, options.trigger)
    // Nothing above awaits: `current` is set in the same turn as the check, so two starts cannot both pass it.
    const done = (async () => {
      if (interrupted && interrupted.startedAt > ((await this.lastResult())?.startedAt ?? '')) await this.record(interrupted)
      return this.execute(options, startedAt)
    })().finally(() => {
      this.current = null
      release()
    })
    this.current = { startedAt, trigger: options.trigger, done }
    return { startedAt, done }
  }

  /** Records the run's end in the audit log; a run whose record cannot be written (a full disk) is logged. */
  private async audit(options: RunOptions, result: BackupResult): Promise<void> {
    const context = options.context ?? (options.trigger === 'cli' ? cliContext() : SYSTEM)
    const facts = { trigger: result.trigger, destination: result.destination }
    try {
      if (result.ok) await audit(this.store, context, 'backup.created', result.name ?? null, { ...facts, size: result.size })
      else await audit(this.store, context, 'backup.failed', null, { ...facts, code: result.code })
    } catch (err) {
      this.log.warn({ err }, `could not write the backup's audit event (${likelyCause(err)})`)
    }
  }

  /** Resolves when no backup is running (used before the database closes). */
  async idle(): Promise<void> {
    await this.current?.done.catch(() => {})
  }

  /**
   * The scheduler's entry, for the minute `slot` it fires in: a tick while another backup runs
   * is skipped and logged, not queued. On PostgreSQL every replica's scheduler fires; the slot is
   * started once: by the replica that takes the task first (store.exclusively), which records it
   * before another can take the task; the others find it taken, or recorded, and skip it.
   */
  async fireScheduled(slot = minuteOf(new Date())): Promise<void> {
    try {
      const turn = await this.store.exclusively('backup-schedule', async () => {
        if ((await this.store.settings.get<string>(SCHEDULED_SLOT_SETTING)) === slot) return false
        // Recorded first: should the record fail, no backup runs that another replica might run too.
        await this.store.settings.set(SCHEDULED_SLOT_SETTING, slot)
        ;(await this.start({ trigger: 'schedule' })).done.catch(() => {})
        return true
      })
      if (!turn.ran || !turn.value) this.log.info({ slot }, 'scheduled backup left to the replica that runs it')
    } catch (err) {
      if (err instanceof LecternError && err.code === 'backup_running') {
        this.log.warn({ runningSince: err.extra.startedAt }, 'scheduled backup skipped: another backup is running')
        return
      }
      this.log.error({ err }, 'scheduled backup could not start')
    }
  }

  private async execute(options: RunOptions, startedAt: string): Promise<BackupResult> {
    const started = Date.now()
    let destinationLabel = options.target ?? ''
    const finish = async (fields: Partial<BackupResult> & { ok: boolean }): Promise<BackupResult> => {
      const result: BackupResult = {
        trigger: options.trigger,
        startedAt,
        finishedAt: new Date().toISOString(),
        durationMs: Date.now() - started,
        destination: destinationLabel,
        ...fields,
      }
      await this.record(result)
      await this.audit(options, result)
      return result
    }
    try {
      const destination = await openDestination(this.store, options.target)
      destinationLabel = destination.label
      // A staged S3 archive from a killed run is only a local copy; the next run starts clean.
      if (destination.kind === 's3') await fsp.rm(destination.stagingDir, { recursive: true, force: true })
      prepareArchiveDir(destination.stagingDir)
      const inArchiveDir = (err: unknown) => Promise.reject(writesIn(err, destination.stagingDir) ? archiveDirError(err, destination.stagingDir) : err)
      const taken = new Set((await destination.list().catch(inArchiveDir)).map((a) => a.name))
      const archive = await createArchive(this.store, destination.stagingDir, { onProgress: options.onProgress, taken }).catch(inArchiveDir)
      options.onProgress?.('upload')
      await destination.store(archive.file, archive.name)
      options.onProgress?.('prune')
      const pruned = await pruneArchives(destination, (await readBackupConfig(this.store)).retention, archive.name)
      for (const failure of pruned.failed) this.log.warn(failure, 'could not prune an old backup archive')
      const warning = destination.kind === 'dir' ? sharesDataDir(destination.label.slice('dir:'.length), this.store.paths.root) : undefined
      const result = await finish({ ok: true, name: archive.name, size: archive.size, partialLibraries: partialLibraries(archive.manifest), pruned, ...(warning ? { warning } : {}) })
      this.log.info({ name: archive.name, size: archive.size, destination: destinationLabel, durationMs: result.durationMs }, 'backup written')
      if (warning) this.log.warn({}, warning)
      return result
    } catch (caught) {
      const err = asDiskFull(caught, destinationLabel ? `the backup to ${destinationLabel}` : 'the backup', this.store.paths.root)
      const code = isLecternError(err) ? err.code : 'internal_error'
      await finish({ ok: false, code, error: (err as Error).message })
      this.log.error({ err, code, destination: destinationLabel }, 'backup failed')
      throw err
    }
  }
}

/**
 * Why archives in `dir` are not a backup yet, when `dir` is inside the data directory `root` (the
 * default destination is `backups/` there): one lost or full disk takes the data and its archives.
 */
function sharesDataDir(dir: string, root: string): string | undefined {
  const relative = path.relative(path.resolve(root), path.resolve(dir))
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined
  return `The archive is in ${dir}, inside the data directory it backs up: a lost or full disk takes both. Copy it elsewhere, or send backups to another disk or host: lectern backup config set --dir /mnt/backups (or --s3-bucket).`
}

/** Whether an OS error names a path in `dir` (not the data directory's work files). */
function writesIn(err: unknown, dir: string): boolean {
  const failed = (err as NodeJS.ErrnoException | undefined)?.path
  return typeof failed === 'string' && !path.relative(dir, failed).startsWith('..')
}

/** A run whose process died holding the backup lock, as a failed result. */
function interruptedResult(store: Store): BackupResult | undefined {
  const holder = interruptedBackup(store.paths)
  if (!holder) return undefined
  return {
    ok: false,
    interrupted: true,
    trigger: (typeof holder.trigger === 'string' ? holder.trigger : 'cli') as Trigger,
    startedAt: holder.startedAt,
    finishedAt: holder.startedAt,
    durationMs: 0,
    destination: '',
    error: `Interrupted: process ${holder.pid} on ${holder.hostname} stopped before the backup it started at ${holder.startedAt} ended; no archive was written.`,
  }
}

const partialLibraries = (manifest: Manifest) => manifest.libraries.filter((l) => l.partial).map((l) => l.id)
