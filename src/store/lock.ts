/**
 * The data-directory lock: one server (or offline tool such as restore) at a time. The lock file
 * holds the owner's pid; a lock whose pid is gone (the owner was SIGKILLed) is taken over at once
 * instead of waiting for a staleness timeout.
 */
import fs from 'node:fs'
import os from 'node:os'
import { LecternError } from '../errors.js'

export interface DataDirLock {
  release(): void
}

interface LockInfo {
  pid: number
  hostname: string
  startedAt: string
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function readLock(lockPath: string): LockInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockInfo
  } catch {
    return undefined
  }
}

/** Whether a live process on this host holds the lock. */
export function isLocked(lockPath: string): boolean {
  const info = readLock(lockPath)
  return info !== undefined && info.hostname === os.hostname() && info.pid !== process.pid && isAlive(info.pid)
}

export function acquireDataDirLock(lockPath: string, dataDir: string): DataDirLock {
  const info: LockInfo = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, JSON.stringify(info), { flag: 'wx', mode: 0o600 })
      return {
        release() {
          if (readLock(lockPath)?.pid === process.pid) fs.rmSync(lockPath, { force: true })
        },
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const holder = readLock(lockPath)
      if (holder && (holder.hostname !== os.hostname() || isAlive(holder.pid))) {
        throw new LecternError(
          'data_dir_locked',
          `The data directory ${dataDir} is in use by Lectern process ${holder.pid} on ${holder.hostname} (since ${holder.startedAt}). Stop it first, or pass another --data-dir.`,
        )
      }
      // The holder died without releasing: remove its lock and try once more.
      fs.rmSync(lockPath, { force: true })
    }
  }
  throw new LecternError('data_dir_locked', `Could not lock ${dataDir}: another process keeps taking the lock.`)
}
