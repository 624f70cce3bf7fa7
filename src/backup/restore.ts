/**
 * Restore. Everything is validated before anything in the data directory is touched (archive,
 * versions, free space, the restored database as a SQLite database of Lectern, and the restored key
 * against the restored secrets). The archive is extracted into a fresh directory inside the data
 * directory (same filesystem) as it is validated, a journal is written, and the current database
 * (+wal/shm), vectors/, uploads/ and secret.key are renamed into
 * `pre-restore-<timestamp>/` (never deleted by Lectern) and the restored ones renamed in.
 * Renames only: a kill at any point leaves each item either old or new, and the next opening of
 * the data directory (`finishInterruptedRestore`, run by openStore) completes the journal's moves.
 */
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { isLecternError, LecternError } from '../errors.js'
import type { DataPaths } from '../install/paths.js'
import { dataPaths } from '../install/paths.js'
import { CANARY_SETTING, opensCanary } from '../secrets/canary.js'
import { createSecretBox } from '../secrets/cipher.js'
import { keyFingerprint } from '../secrets/key.js'
import { settingOfFile } from '../store/database-file.js'
import { acquireDataDirLock, isLocked } from '../store/lock.js'
import { fsyncDir } from './fsync.js'
import { databaseProblem } from './check-database.js'
import { DATABASE_MEMBER, KEY_MEMBER, type Manifest } from './manifest.js'
import { isArchiveName, partialName } from './names.js'
import { recordLastRestore, type LastRestore } from './restore-status.js'
import { checkFor, freeSpaceProblem, scanArchive, summarise, type ArchiveSummary } from './verify.js'

/** The items a restore replaces, in the order they move. */
const ITEMS = ['lectern.db', 'vectors', 'uploads', 'secret.key'] as const
/**
 * Directory items are replaced even when the archive has no member in them (no live vector set,
 * no uploaded spec, an archive older than uploads/): restored empty, so no current file is left
 * beside data it does not belong to.
 */
const DIR_ITEMS = ['vectors', 'uploads'] as const
/** Extraction directories; one without a journal is the leftover of a killed restore. */
export const TEMP_DIR_PREFIX = '.restore-tmp-'
/** WAL files belong to the database they sit next to: they move aside with it, never in. */
const DB_COMPANIONS = ['lectern.db-wal', 'lectern.db-shm'] as const

interface Journal {
  tempDir: string
  preRestoreDir: string
  archive: string
  startedAt: string
}

export interface RestoreResult extends ArchiveSummary {
  /** Where the replaced data was set aside; null when the data directory held none (a new one). */
  preRestoreDir: string | null
}

const stamp = (at: Date) => at.toISOString().slice(0, 19).replaceAll(':', '-')

/**
 * Validates the archive, the compatibility rules and its database; changes nothing. The database
 * member is extracted for its check into a scratch directory in `workDir` (the data directory:
 * the same volume the restore would use), removed afterwards.
 */
export async function inspectArchive(archive: string, workDir: string): Promise<{ manifest: Manifest; summary: ArchiveSummary }> {
  if (!fs.existsSync(archive)) throw new LecternError('backup_not_found', `No archive at ${archive}.`)
  await fsp.mkdir(workDir, { recursive: true, mode: 0o700 })
  const scratch = await fsp.mkdtemp(path.join(workDir, `${TEMP_DIR_PREFIX}check-`))
  try {
    const manifest = await scanArchive(archive, { extractTo: scratch, extract: (member) => member === DATABASE_MEMBER, check: checkFor('sqlite') })
    await checkDatabase(archive, scratch, manifest)
    return { manifest, summary: summarise(archive, manifest) }
  } finally {
    await fsp.rm(scratch, { recursive: true, force: true })
  }
}

/** The extracted database must be a SQLite database of Lectern (check-database.ts). */
async function checkDatabase(archive: string, dir: string, manifest: Manifest): Promise<void> {
  const problem = await databaseProblem(path.join(dir, DATABASE_MEMBER), manifest)
  if (problem) throw new LecternError('archive_invalid', `${path.basename(archive)} cannot be restored: ${problem}. Nothing was changed.`)
}

export interface RestoreOptions {
  /** The caller (serve applying a staged restore) already holds the data-directory lock. */
  lockHeld?: boolean
  now?: () => Date
}

export async function restoreArchive(dataDir: string, archive: string, options: RestoreOptions = {}): Promise<RestoreResult> {
  const paths = dataPaths(dataDir)
  const now = options.now ?? (() => new Date())
  if (!options.lockHeld && isLocked(paths.lock)) {
    throw new LecternError('restore_refused', `A Lectern server is running on ${paths.root}. Stop it first, then restore. Nothing was changed.`)
  }
  await fsp.mkdir(paths.root, { recursive: true, mode: 0o700 })
  const lock = options.lockHeld ? undefined : acquireDataDirLock(paths.lock, paths.root)
  try {
    await finishInterruptedRestore(paths)
    if (!fs.existsSync(archive)) throw new LecternError('backup_not_found', `No archive at ${archive}.`)
    const at = now()
    const tempDir = path.join(paths.root, `${TEMP_DIR_PREFIX}${stamp(at)}-${process.pid}`)
    await fsp.mkdir(tempDir, { mode: 0o700 })
    let summary: ArchiveSummary
    try {
      // One pass: members are verified as they are written (after the free space is checked), and
      // only verified files are ever used.
      const manifest = await scanArchive(archive, { extractTo: tempDir, check: checkFor('sqlite') })
      await checkDatabase(archive, tempDir, manifest)
      checkKey(archive, tempDir, manifest)
      for (const dir of DIR_ITEMS) await fsp.mkdir(path.join(tempDir, dir), { recursive: true, mode: 0o700 })
      summary = summarise(archive, manifest)
    } catch (err) {
      await fsp.rm(tempDir, { recursive: true, force: true })
      throw err
    }
    const journal: Journal = { tempDir, preRestoreDir: path.join(paths.root, `pre-restore-${stamp(at)}`), archive, startedAt: at.toISOString() }
    await writeDurably(paths.restoreJournal, JSON.stringify(journal))
    await completeMoves(paths, journal)
    // Engine files are derived from the rows they were built from, and the restored rows are
    // others: the first query of each set rebuilds its file.
    await fsp.rm(paths.engine, { recursive: true, force: true })
    return { ...summary, preRestoreDir: fs.existsSync(journal.preRestoreDir) ? journal.preRestoreDir : null }
  } finally {
    lock?.release()
  }
}

/**
 * Finishes a restore that a kill interrupted (the journal exists): the restored files were
 * complete and verified before the journal was written, so finishing is always forward.
 */
export async function finishInterruptedRestore(paths: DataPaths): Promise<boolean> {
  let journal: Journal
  try {
    journal = JSON.parse(await fsp.readFile(paths.restoreJournal, 'utf8')) as Journal
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    // No journal: a restore killed before its moves began left only its extraction directory.
    if (!isLocked(paths.lock)) await sweepTempDirs(paths)
    return false
  }
  if (isLocked(paths.lock)) {
    throw new LecternError('data_dir_locked', `A restore into ${paths.root} is in progress in another process; wait for it to finish.`)
  }
  await completeMoves(paths, journal)
  return true
}

async function sweepTempDirs(paths: DataPaths): Promise<void> {
  const entries = await fsp.readdir(paths.root).catch(() => [] as string[])
  for (const entry of entries.filter((e) => e.startsWith(TEMP_DIR_PREFIX))) await fsp.rm(path.join(paths.root, entry), { recursive: true, force: true })
}

/** The renames still to do, computed from what is on disk, so repeating it after a kill is safe. */
export function pendingMoves(paths: DataPaths, journal: Journal): Array<[from: string, to: string]> {
  const at = (dir: string, item: string) => path.join(dir, item)
  const waiting = ITEMS.filter((item) => fs.existsSync(at(journal.tempDir, item)))
  const aside = (item: string): [string, string] => {
    const target = at(journal.preRestoreDir, item)
    // Never overwrite what is already set aside.
    return [at(paths.root, item), fs.existsSync(target) ? `${target}.${Date.now()}` : target]
  }
  const moves: Array<[string, string]> = []
  if (waiting.includes('lectern.db')) {
    for (const companion of DB_COMPANIONS) if (fs.existsSync(at(paths.root, companion))) moves.push(aside(companion))
  }
  for (const item of waiting) if (fs.existsSync(at(paths.root, item))) moves.push(aside(item))
  for (const item of waiting) moves.push([at(journal.tempDir, item), at(paths.root, item)])
  return moves
}

async function completeMoves(paths: DataPaths, journal: Journal): Promise<void> {
  await fsp.mkdir(journal.preRestoreDir, { recursive: true, mode: 0o700 })
  for (const [from, to] of pendingMoves(paths, journal)) await fsp.rename(from, to)
  await fsyncDir(journal.preRestoreDir)
  // Nothing was set aside (a new data directory): no empty directory to puzzle over.
  if ((await fsp.readdir(journal.preRestoreDir)).length === 0) await fsp.rmdir(journal.preRestoreDir)
  await fsyncDir(paths.root)
  await fsp.rm(paths.restoreJournal, { force: true })
  await fsp.rm(journal.tempDir, { recursive: true, force: true })
  await fsyncDir(paths.root)
}

/** The restored key must be the one the manifest names and must open the restored secrets. */
function checkKey(archive: string, dir: string, manifest: Manifest): void {
  const key = fs.readFileSync(path.join(dir, KEY_MEMBER))
  const bad = (why: string) => new LecternError('archive_invalid', `${path.basename(archive)} cannot be restored: ${why}. Nothing was changed.`)
  if (key.length !== 32 || keyFingerprint(key) !== manifest.keyFingerprint) throw bad('its secret.key is not the key the manifest names')
  const canary = settingOfFile(path.join(dir, DATABASE_MEMBER), CANARY_SETTING)
  // Archives always carry the canary (the backup writes it first); a missing one has no secrets to check.
  if (canary !== undefined && !opensCanary(canary as string, createSecretBox(key))) throw bad('its secret.key does not decrypt its stored secrets')
}

async function writeDurably(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp`
  const handle = await fsp.open(tmp, 'w', 0o600)
  try {
    await handle.writeFile(text)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await fsp.rename(tmp, file)
  await fsyncDir(path.dirname(file))
}

/**
 * Stages a validated archive for the next start (the dashboard route): copied to
 * `restore-staged/` under a partial name, fsynced and renamed, so a start never applies half a copy.
 */
export async function stageRestore(paths: DataPaths, archive: string): Promise<ArchiveSummary> {
  const { summary } = await inspectArchive(archive, paths.root)
  // Room for the copy now and for the extracted members when the next start applies it.
  const room = freeSpaceProblem(paths.root, (await fsp.stat(archive)).size + summary.bytes)
  if (room) throw room
  await fsp.rm(paths.restoreStaged, { recursive: true, force: true })
  await fsp.mkdir(paths.restoreStaged, { recursive: true, mode: 0o700 })
  const name = path.basename(archive)
  const partial = path.join(paths.restoreStaged, partialName(name))
  await fsp.copyFile(archive, partial)
  const handle = await fsp.open(partial, 'r+')
  await handle.sync()
  await handle.close()
  await fsp.rename(partial, path.join(paths.restoreStaged, name))
  await fsyncDir(paths.restoreStaged)
  return summary
}

export type StagedRestoreOutcome = { state: 'applied'; result: RestoreResult } | { state: 'failed'; error: LecternError }

interface StartLog {
  info(o: object, m: string): void
  error(o: object, m: string): void
}

/**
 * Applies a staged restore at start-up, before the store opens; the caller holds the lock. A
 * staged archive that fails is moved to `restore-staged.failed-<ts>/` (so the next start runs on
 * the current data, which the failure left unchanged), logged at error and recorded for
 * GET /api/backup/status; the caller decides whether to start anyway (serve.ts).
 */
export async function applyStagedRestore(paths: DataPaths, log: StartLog): Promise<StagedRestoreOutcome | undefined> {
  let names: string[]
  try {
    names = (await fsp.readdir(paths.restoreStaged)).filter(isArchiveName).sort()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
  const newest = names.at(-1)
  const at = new Date()
  try {
    if (!newest) throw new LecternError('archive_invalid', 'restore-staged/ holds no complete archive')
    const result = await restoreArchive(paths.root, path.join(paths.restoreStaged, newest), { lockHeld: true })
    await fsp.rm(paths.restoreStaged, { recursive: true, force: true })
    log.info({ archive: newest, preRestoreDir: result.preRestoreDir }, 'applied the staged restore')
    record(paths, log, { state: 'applied', archive: newest, at: at.toISOString(), movedTo: result.preRestoreDir ?? undefined })
    return { state: 'applied', result }
  } catch (caught) {
    const error = isLecternError(caught) ? caught : new LecternError('internal_error', (caught as Error).message, {}, { cause: caught })
    const failed = `${paths.restoreStaged}.failed-${stamp(at)}`
    await fsp.rename(paths.restoreStaged, failed)
    log.error({ err: caught, code: error.code, archive: newest, movedTo: failed }, `the staged restore could not be applied, the data is unchanged: ${error.message}`)
    record(paths, log, { state: 'failed', archive: newest ?? '', at: at.toISOString(), code: error.code, reason: error.message, movedTo: failed })
    return { state: 'failed', error }
  }
}

function record(paths: DataPaths, log: StartLog, outcome: LastRestore): void {
  try {
    recordLastRestore(paths, outcome)
  } catch (err) {
    log.error({ err, outcome }, 'could not record the outcome of the staged restore')
  }
}
