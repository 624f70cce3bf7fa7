/**
 * The outcome of the last staged (dashboard) restore, kept in `last-restore.json` in the data
 * directory. A staged restore is applied at a start, with nobody watching: its outcome, above all
 * a failure, must outlive that start, so it is written to a file (the database may be the thing
 * being replaced) and reported by GET /api/backup/status until the next staged restore.
 */
import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import type { DataPaths } from '../install/paths.js'

export const LastRestoreSchema = z.object({
  state: z.enum(['applied', 'failed']),
  archive: z.string(),
  at: z.string(),
  /** Why it failed: the catalogue code and its message. */
  code: z.string().optional(),
  reason: z.string().optional(),
  /** Where the current data went (applied), or where the staged archive was moved (failed). */
  movedTo: z.string().optional(),
})

export type LastRestore = z.infer<typeof LastRestoreSchema>

const file = (paths: DataPaths) => path.join(paths.root, 'last-restore.json')

export function readLastRestore(paths: DataPaths): LastRestore | null {
  try {
    const parsed = LastRestoreSchema.safeParse(JSON.parse(fs.readFileSync(file(paths), 'utf8')))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/** Written durably (temp file, fsync, rename); a failure to write is the caller's to log. */
export function recordLastRestore(paths: DataPaths, outcome: LastRestore): void {
  const target = file(paths)
  const tmp = `${target}.tmp`
  const fd = fs.openSync(tmp, 'w', 0o600)
  try {
    fs.writeFileSync(fd, JSON.stringify(outcome))
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(tmp, target)
}
