/**
 * The backup lock: one backup at a time per data directory, across processes (the server's
 * scheduler and `lectern backup` run next to each other); an OS lock (store/lock.ts), so a
 * backup process that dies never leaves a backup "running".
 */
import path from 'node:path'
import { LecternError } from '../errors.js'
import type { DataPaths } from '../install/paths.js'
import { abandonedHolder, acquireLock, lockState, readLockHolder, type LockHolder } from '../store/lock.js'

const lockFile = (paths: DataPaths) => path.join(paths.root, 'backup.lock')

/** A backup run by another process: its holder information, or a bare marker when it wrote none. */
export function backupInOtherProcess(paths: DataPaths): { startedAt: string | null; trigger: string | null } | undefined {
  if (lockState(lockFile(paths)) !== 'held') return undefined
  const holder = readLockHolder(lockFile(paths))
  return { startedAt: holder?.startedAt ?? null, trigger: typeof holder?.trigger === 'string' ? holder.trigger : null }
}

/** The run whose process died holding the lock (SIGKILL, a crash, a container stopped). */
export const interruptedBackup = (paths: DataPaths): LockHolder | undefined => abandonedHolder(lockFile(paths))

export function acquireBackupLock(paths: DataPaths, startedAt: string, trigger: string): () => void {
  const lock = acquireLock(
    lockFile(paths),
    (holder) =>
      new LecternError(
        'backup_running',
        `A backup ${holder ? `started at ${holder.startedAt} by process ${holder.pid} on ${holder.hostname} ` : ''}is still running.`,
        { startedAt: holder?.startedAt ?? null },
      ),
    { startedAt, trigger },
  )
  return () => lock.release()
}
