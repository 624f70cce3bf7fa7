/**
 * Runs backups, one at a time: within a process a manual run and a scheduled run share one
 * mutex, and across processes (server and `lectern backup`) the backup lock file. A run writes
 * the archive, delivers it, and only then prunes by the retention rule; a failed run prunes
 * nothing. The last result is kept in the settings table so every process reports the same.
 */
import fsp from 'node:fs/promises'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import { SETTING_KEYS } from '../store/settings.js'
import { createArchive, type Progress } from './archive.js'
import { openDestination, readBackupConfig } from './config.js'
import { acquireBackupLock } from './lock.js'
import type { Manifest } from './manifest.js'
import { pruneArchives, type PruneResult } from './retention.js'

const LAST_RESULT_SETTING = SETTING_KEYS.backupLastResult

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
  error?: string
}

export interface BackupStatus {
  running: boolean
  startedAt: string | null
  trigger: Trigger | null
  last: BackupResult | null
}

export interface RunOptions {
  trigger: Trigger
  /** `--to DIR|s3://bucket/prefix` instead of the configured destination (retention still applies). */
  target?: string
  onProgress?: Progress
}

interface Log {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export class BackupRunner {
  private current: { startedAt: string; trigger: Trigger; done: Promise<unknown> } | null = null

  constructor(
    private readonly store: Store,
    private readonly log: Log,
  ) {}

  status(): BackupStatus {
    return {
      running: this.current !== null,
      startedAt: this.current?.startedAt ?? null,
      trigger: this.current?.trigger ?? null,
      last: this.store.settings.get<BackupResult>(LAST_RESULT_SETTING) ?? null,
    }
  }

  /**
   * Starts a run and returns at once with its start time and completion promise; throws
   * `backup_running` (with the running one's start time) when one is already under way.
   */
  start(options: RunOptions): { startedAt: string; done: Promise<BackupResult> } {
    if (this.current) {
      throw new LecternError('backup_running', `A backup started at ${this.current.startedAt} is still running.`, { startedAt: this.current.startedAt })
    }
    const startedAt = new Date().toISOString()
    const release = acquireBackupLock(this.store.paths, startedAt)
    const done = this.execute(options, startedAt).finally(() => {
      this.current = null
      release()
    })
    this.current = { startedAt, trigger: options.trigger, done }
    return { startedAt, done }
  }

  /** Resolves when no backup is running (used before the database closes). */
  async idle(): Promise<void> {
    await this.current?.done.catch(() => {})
  }

  /** The scheduler's entry: a tick while another backup runs is skipped and logged, not queued. */
  fireScheduled(): void {
    try {
      this.start({ trigger: 'schedule' }).done.catch(() => {})
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
    const finish = (fields: Partial<BackupResult> & { ok: boolean }): BackupResult => {
      const result: BackupResult = {
        trigger: options.trigger,
        startedAt,
        finishedAt: new Date().toISOString(),
        durationMs: Date.now() - started,
        destination: destinationLabel,
        ...fields,
      }
      this.store.settings.set(LAST_RESULT_SETTING, result)
      return result
    }
    try {
      const destination = openDestination(this.store, options.target)
      destinationLabel = destination.label
      // A staged S3 archive from a killed run is only a local copy; the next run starts clean.
      if (destination.kind === 's3') await fsp.rm(destination.stagingDir, { recursive: true, force: true })
      const taken = new Set((await destination.list()).map((a) => a.name))
      const archive = await createArchive(this.store, destination.stagingDir, { onProgress: options.onProgress, taken })
      options.onProgress?.('upload')
      await destination.store(archive.file, archive.name)
      options.onProgress?.('prune')
      const pruned = await pruneArchives(destination, readBackupConfig(this.store).retention, archive.name)
      for (const failure of pruned.failed) this.log.warn(failure, 'could not prune an old backup archive')
      const result = finish({ ok: true, name: archive.name, size: archive.size, partialLibraries: partialLibraries(archive.manifest), pruned })
      this.log.info({ name: archive.name, size: archive.size, destination: destinationLabel, durationMs: result.durationMs }, 'backup written')
      return result
    } catch (err) {
      finish({ ok: false, error: (err as Error).message })
      this.log.error({ err, destination: destinationLabel }, 'backup failed')
      throw err
    }
  }
}

const partialLibraries = (manifest: Manifest) => manifest.libraries.filter((l) => l.partial).map((l) => l.id)
