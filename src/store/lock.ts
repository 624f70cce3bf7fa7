/**
 * Locks that die with their process. A lock is a small, empty SQLite file (`<name>.db`) held in
 * an exclusive transaction: SQLite takes POSIX advisory (fcntl) locks on it, which the kernel
 * drops the moment the process ends, however it ends (SIGKILL, OOM, a container stopped). No lock
 * is ever left stale, whatever pid, hostname or PID namespace the next process has. SQLite also
 * keeps its own table of the locks a process holds, so a second acquire in the same process is
 * refused too (bare fcntl locks would grant it, and would drop when any descriptor closes).
 *
 * Who holds a lock (pid, host, start, and a server's address) is written beside it, in `<name>`
 * itself, for the refusal message and `lectern status` only: it is removed on release and left
 * behind by a crash, and never decides anything.
 *
 * Two are used: the data-directory lock (one server, or offline tool such as restore, at a time)
 * and the backup lock (one backup at a time, across processes).
 */
import fs from 'node:fs'
import os from 'node:os'
import Database from 'better-sqlite3'
import { z } from 'zod'
import { LecternError } from '../errors.js'

const LockHolderSchema = z
  .object({ pid: z.number().int(), hostname: z.string(), startedAt: z.string() })
  .catchall(z.union([z.string(), z.number(), z.boolean(), z.null()]))

export type LockHolder = z.infer<typeof LockHolderSchema>

export interface HeldLock {
  /** Adds to what the holder information says (a server's address, once it listens). */
  describe(details: Record<string, string>): void
  release(): void
}

/**
 * A contender retries this long: a `lockState` probe holds a shared lock for a few microseconds,
 * which must not make a real acquire fail. A lock truly held is refused after this wait.
 */
const ACQUIRE_WAIT_MS = 50

/** The locks this process holds, by path; the reference also keeps each connection open. */
const held = new Map<string, Database.Database>()

const osLockFile = (lockPath: string) => `${lockPath}.db`

/** The holder information written beside a lock; undefined when absent or not ours. */
export function readLockHolder(lockPath: string): LockHolder | undefined {
  try {
    const parsed = LockHolderSchema.safeParse(JSON.parse(fs.readFileSync(lockPath, 'utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

function writeHolder(lockPath: string, holder: LockHolder): void {
  const tmp = `${lockPath}.${process.pid}.tmp`
  try {
    fs.writeFileSync(tmp, JSON.stringify(holder), { mode: 0o600 })
    fs.renameSync(tmp, lockPath)
  } catch {
    // Only the refusal message of a contender uses it; a full disk must not stop the lock.
    fs.rmSync(tmp, { force: true })
  }
}

const isBusy = (err: unknown) => (err as { code?: string }).code?.startsWith('SQLITE_BUSY') === true
const isNotADatabase = (err: unknown) => (err as { code?: string }).code === 'SQLITE_NOTADB'

/**
 * Takes the lock at `lockPath`, or throws what `refuse` makes of the holder's information
 * (undefined when the holder has not written it, or it is unreadable).
 */
export function acquireLock(lockPath: string, refuse: (holder: LockHolder | undefined) => LecternError, details: { startedAt: string } & Record<string, string>): HeldLock {
  const file = osLockFile(lockPath)
  if (held.has(file)) throw refuse(readLockHolder(lockPath))
  const db = new Database(file)
  try {
    db.pragma(`busy_timeout = ${ACQUIRE_WAIT_MS}`)
    // An exclusive transaction would otherwise create a rollback journal on disk: a lock must be
    // takeable on a full disk (a server restarting there still serves reads).
    db.pragma('journal_mode = MEMORY')
    try {
      db.exec('BEGIN EXCLUSIVE')
    } catch (err) {
      // Nobody can hold a file that is not a database; emptying it (same inode) makes it usable again.
      if (!isNotADatabase(err)) throw err
      fs.truncateSync(file, 0)
      db.exec('BEGIN EXCLUSIVE')
    }
  } catch (err) {
    db.close()
    if (isBusy(err)) throw refuse(readLockHolder(lockPath))
    throw err
  }
  held.set(file, db)
  let holder: LockHolder = { ...details, pid: process.pid, hostname: os.hostname() }
  writeHolder(lockPath, holder)
  return {
    describe(more) {
      if (held.get(file) !== db) return
      holder = { ...holder, ...more }
      writeHolder(lockPath, holder)
    },
    release() {
      if (held.get(file) !== db) return
      // The information goes first: while it is there, the lock is held or its holder died.
      fs.rmSync(lockPath, { force: true })
      held.delete(file)
      db.close()
    },
  }
}

export type LockState = 'free' | 'held-here' | 'held'

/**
 * Whether the lock is free, held by this process, or held by another, found by trying to read
 * the lock file (a shared lock, refused while anyone holds the exclusive one).
 */
export function lockState(lockPath: string): LockState {
  const file = osLockFile(lockPath)
  if (held.has(file)) return 'held-here'
  let db: Database.Database
  try {
    db = new Database(file, { readonly: true, fileMustExist: true })
  } catch {
    return 'free'
  }
  try {
    db.pragma('busy_timeout = 0')
    db.prepare('SELECT count(*) FROM sqlite_master').get()
    return 'free'
  } catch (err) {
    return isBusy(err) ? 'held' : 'free'
  } finally {
    db.close()
  }
}

/** Whether another process holds the lock (this process's own hold does not count). */
export const isLocked = (lockPath: string): boolean => lockState(lockPath) === 'held'

/** The holder information a process left when it died holding the lock; undefined otherwise. */
export function abandonedHolder(lockPath: string): LockHolder | undefined {
  return lockState(lockPath) === 'free' ? readLockHolder(lockPath) : undefined
}

export function acquireDataDirLock(lockPath: string, dataDir: string): HeldLock {
  return acquireLock(
    lockPath,
    (holder) =>
      new LecternError(
        'data_dir_locked',
        `The data directory ${dataDir} is in use by ${holder ? `Lectern process ${holder.pid} on ${holder.hostname} (since ${holder.startedAt})` : 'another Lectern process'}. Stop it first, or pass another --data-dir.`,
      ),
    { startedAt: new Date().toISOString() },
  )
}
