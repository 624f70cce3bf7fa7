/**
 * The backup lock: one backup at a time per data directory, across processes (the server's
 * scheduler and `lectern backup` run next to each other); a pid-file lock (store/lock.ts).
 */
import path from 'node:path'
import { LecternError } from '../errors.js'
import type { DataPaths } from '../paths.js'
import { acquirePidLock, readLock, type LockHolder } from '../store/lock.js'

const lockFile = (paths: DataPaths) => path.join(paths.root, 'backup.lock')

export const readBackupLock = (paths: DataPaths): LockHolder | undefined => readLock(lockFile(paths))

export function acquireBackupLock(paths: DataPaths, startedAt: string): () => void {
  const lock = acquirePidLock(
    lockFile(paths),
    (holder) =>
      new LecternError('backup_running', `A backup started at ${holder.startedAt} by process ${holder.pid} is still running.`, {
        startedAt: holder.startedAt,
      }),
    startedAt,
  )
  return () => lock.release()
}
