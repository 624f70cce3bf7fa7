/**
 * Pid-file locks. A lock file holds its owner's pid, host and start time, created with O_EXCL;
 * a lock whose pid is gone (the owner was SIGKILLed) is taken over at once instead of waiting
 * for a staleness timeout. Two are used: the data-directory lock (one server, or offline tool
 * such as restore, at a time) and the backup lock (one backup at a time, across processes).
 */
import fs from 'node:fs'
import os from 'node:os'
import { LecternError } from '../errors.js'

export interface LockHolder {
  pid: number
  hostname: string
  startedAt: string
}

export interface DataDirLock {
  release(): void
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function readLock(lockPath: string): LockHolder | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockHolder
  } catch {
    return undefined
  }
}

/** Whether a live process holds the lock (a holder on another host cannot be checked: it counts as live). */
function isHeld(holder: LockHolder | undefined): holder is LockHolder {
  return holder !== undefined && (holder.hostname !== os.hostname() || isAlive(holder.pid))
}

/** Whether a live process on this host holds the lock. */
export function isLocked(lockPath: string): boolean {
  const holder = readLock(lockPath)
  return holder !== undefined && holder.hostname === os.hostname() && holder.pid !== process.pid && isAlive(holder.pid)
}

/**
 * Takes the lock at `lockPath`, or throws what `refuse` makes of the live holder. Release only
 * removes the file while this process still owns it.
 */
export function acquirePidLock(lockPath: string, refuse: (holder: LockHolder) => LecternError, startedAt = new Date().toISOString()): DataDirLock {
  const info: LockHolder = { pid: process.pid, hostname: os.hostname(), startedAt }
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
      if (isHeld(holder)) throw refuse(holder)
      // The holder died without releasing: remove its lock and try once more.
      fs.rmSync(lockPath, { force: true })
    }
  }
  throw refuse(readLock(lockPath) ?? info)
}

export function acquireDataDirLock(lockPath: string, dataDir: string): DataDirLock {
  return acquirePidLock(
    lockPath,
    (holder) =>
      new LecternError(
        'data_dir_locked',
        `The data directory ${dataDir} is in use by Lectern process ${holder.pid} on ${holder.hostname} (since ${holder.startedAt}). Stop it first, or pass another --data-dir.`,
      ),
  )
}
