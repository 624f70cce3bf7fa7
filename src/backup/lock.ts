/**
 * The backup lock: one backup at a time per data directory, across processes (the server's
 * scheduler and `lectern backup` run next to each other). The file holds the owner's pid; a lock
 * whose owner died (SIGKILL) is taken over at once.
 */
import fs from 'node:fs'
import path from 'node:path'
import { LecternError } from '../errors.js'
import type { DataPaths } from '../paths.js'

interface Holder {
  pid: number
  startedAt: string
}

const lockFile = (paths: DataPaths) => path.join(paths.root, 'backup.lock')

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function readBackupLock(paths: DataPaths): Holder | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockFile(paths), 'utf8')) as Holder
  } catch {
    return undefined
  }
}

export function acquireBackupLock(paths: DataPaths, startedAt: string): () => void {
  const file = lockFile(paths)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, startedAt } satisfies Holder), { flag: 'wx', mode: 0o600 })
      return () => {
        if (readBackupLock(paths)?.pid === process.pid) fs.rmSync(file, { force: true })
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const holder = readBackupLock(paths)
      if (holder && isAlive(holder.pid)) {
        throw new LecternError('backup_running', `A backup started at ${holder.startedAt} by process ${holder.pid} is still running.`, {
          startedAt: holder.startedAt,
        })
      }
      fs.rmSync(file, { force: true })
    }
  }
  throw new LecternError('backup_running', 'Another process keeps taking the backup lock.')
}
