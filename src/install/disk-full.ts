/**
 * A full disk, recognised wherever it surfaces: SQLite (SQLITE_FULL), the fs module (ENOSPC,
 * EDQUOT), git and usearch (their messages carry strerror's "No space left on device"). Found
 * anywhere, it becomes the `disk_full` error, never a source or internal error: the remedy is the
 * operator's (free space), not the caller's.
 */
import fs from 'node:fs'
import { LecternError } from '../errors.js'

const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT'])
const FULL_MESSAGE = /no space left on device|database or disk is full|disk quota exceeded|ENOSPC/i
/** Below this, an I/O error of SQLite (its shared-memory file growing, say) is put down to the full volume. */
const NEARLY_FULL_BYTES = 1024 * 1024

/**
 * Whether `err` (or its cause) says the disk is full. With `dir`, an error that names no cause
 * (usearch's "Failed to serialize into stream") or a bare I/O error (SQLite's, when its
 * shared-memory file cannot grow) also counts when the volume holding `dir` has (almost) no room
 * left: ask before removing what the failed write left behind.
 */
export function isDiskFull(err: unknown, dir?: string): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof LecternError) return e.code === 'disk_full'
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && FULL_CODES.has(code)) return true
    if (FULL_MESSAGE.test(e.message)) return true
    const vague = code === undefined || (typeof code === 'string' && (code.startsWith('SQLITE_IOERR') || code === 'EIO'))
    if (dir !== undefined && vague && freeBytes(dir) < NEARLY_FULL_BYTES) return true
  }
  return false
}

/**
 * What a log line of a write that failed and is retried suggests to look at: a database that
 * cannot be reached (on PostgreSQL), otherwise a full disk, the usual reason a local write fails.
 */
export function likelyCause(err: unknown): string {
  return err instanceof LecternError && err.code === 'database_unreachable' ? 'the database cannot be reached' : 'is the disk full?'
}

function freeBytes(dir: string): number {
  try {
    const stats = fs.statfsSync(dir)
    return stats.bavail * stats.bsize
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/**
 * `err` as the `disk_full` error when it is one (`doing` names what failed, `dir` as for
 * isDiskFull); otherwise `err` unchanged.
 */
export function asDiskFull(err: unknown, doing: string, dir?: string): unknown {
  if (!isDiskFull(err, dir) || (err instanceof LecternError && err.code === 'disk_full')) return err
  const reason = err instanceof Error ? err.message : String(err)
  return new LecternError('disk_full', `The disk is full: ${doing} failed (${reason}). Free space on that volume; nothing needs restarting.`, {}, { cause: err })
}
