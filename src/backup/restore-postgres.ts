/**
 * Restoring the archive of a PostgreSQL store (archive.ts) into the database DATABASE_URL names:
 * the archive is validated as any other (manifest, every member's size and sha256, the versions
 * it may come from), its dump must be one pg_restore reads, and the key must be the one its
 * secrets were sealed with, before the database is touched; store/postgres-restore.ts replays
 * the dump and says what it guarantees. The replicas migrate an older schema as they start.
 */
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { withoutPassword } from '../config.js'
import { LecternError } from '../errors.js'
import { REPLICA_STALE_MS } from '../install/replica.js'
import { keyFingerprint } from '../secrets/key.js'
import { dumpProblem, inspectTarget, refuseTarget, restorePostgresDump, type PostgresRestoreOptions } from '../store/postgres-restore.js'
import { DUMP_MEMBER, type Manifest } from './manifest.js'
import { TEMP_DIR_PREFIX } from './restore.js'
import { checkFor, scanArchive, summarise, type ArchiveSummary } from './verify.js'

export interface PostgresRestoreTarget {
  /** DATABASE_URL: the database to restore into. */
  url: string
  /** LECTERN_SECRET_KEY: the archive's secrets must have been sealed with it. */
  key: Buffer
  /** Where the dump is extracted while it is checked and restored (the data directory). */
  workDir: string
  /** Replace what the database holds. */
  force: boolean
}

const optionsOf = (target: PostgresRestoreTarget): PostgresRestoreOptions => ({
  force: target.force,
  liveSince: new Date(Date.now() - REPLICA_STALE_MS).toISOString(),
  shownAs: withoutPassword(target.url),
})

/** Everything a restore checks before it changes anything (the archive, the key, the target database); changes nothing. */
export async function inspectPostgresArchive(archive: string, target: PostgresRestoreTarget): Promise<{ manifest: Manifest; summary: ArchiveSummary }> {
  return await withDump(archive, target, async (manifest) => {
    const options = optionsOf(target)
    refuseTarget(await inspectTarget(target.url, options.liveSince), options)
    return { manifest, summary: summarise(archive, manifest) }
  })
}

/** Restores the archive into the target database; refused, with nothing changed, where inspectPostgresArchive would refuse. */
export async function restorePostgresArchive(archive: string, target: PostgresRestoreTarget): Promise<ArchiveSummary> {
  return await withDump(archive, target, async (manifest, dump) => {
    await restorePostgresDump(target.url, dump, optionsOf(target))
    return summarise(archive, manifest)
  })
}

/** Runs `fn` with the archive's checked manifest and dump, extracted into a scratch directory removed afterwards. */
async function withDump<T>(archive: string, target: PostgresRestoreTarget, fn: (manifest: Manifest, dump: string) => Promise<T>): Promise<T> {
  if (!fs.existsSync(archive)) throw new LecternError('backup_not_found', `No archive at ${archive}.`)
  await fsp.mkdir(target.workDir, { recursive: true, mode: 0o700 })
  const scratch = await fsp.mkdtemp(path.join(target.workDir, TEMP_DIR_PREFIX))
  try {
    const manifest = await scanArchive(archive, { extractTo: scratch, extract: (name) => name === DUMP_MEMBER, check: checkFor('postgres') })
    if (keyFingerprint(target.key) !== manifest.keyFingerprint) {
      throw new LecternError(
        'secret_key_mismatch',
        `LECTERN_SECRET_KEY is not the key the secrets in ${path.basename(archive)} were sealed with (fingerprint ${manifest.keyFingerprint}): set it to the key of the install the archive was made of. Nothing was changed.`,
      )
    }
    const dump = path.join(scratch, DUMP_MEMBER)
    const problem = await dumpProblem(dump)
    if (problem) throw new LecternError('archive_invalid', `${path.basename(archive)} cannot be restored: ${problem}. Nothing was changed.`)
    return await fn(manifest, dump)
  } finally {
    await fsp.rm(scratch, { recursive: true, force: true })
  }
}
