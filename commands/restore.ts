import path from 'node:path'
import confirm from '@inquirer/confirm'
import { Args, Flags } from '@oclif/core'
import { humanSize, humanTimestamp } from '../cli/output.js'
import { LecternCommand } from '../cli/run.js'
import { cliContext } from '../src/audit/log.js'
import { auditRestore } from '../src/audit/restore.js'
import { inspectArchive, restoreArchive, type RestoreResult } from '../src/backup/restore.js'
import type { ArchiveSummary } from '../src/backup/verify.js'
import { LecternError } from '../src/errors.js'
import { dataPaths } from '../src/install/paths.js'
import { isLocked } from '../src/store/lock.js'
import { withoutPassword } from '../src/config.js'
import { secretKeyFromEnv } from '../src/secrets/key.js'

export default class Restore extends LecternCommand {
  static override summary = 'Restore a backup archive into the data directory, or into PostgreSQL (servers stopped).'
  static override description = `Validates everything first (gzip, manifest, every member's size and sha256, no extra, missing, linked or out-of-tree members, no more unpacked data than the manifest declares, free disk, that the database is a SQLite database of Lectern passing its integrity check, and that the archive's key opens its secrets); then moves the current database, vectors/, uploads/ and secret.key into pre-restore-<timestamp>/ in the data directory (never deleted by Lectern) and moves the restored files in, by renames only. An archive from a newer Lectern is refused; an older one is migrated at the next start.

With DATABASE_URL set, it restores the archive of an install on PostgreSQL (its pg_dump) into that database with pg_restore and psql, in one transaction: refused while any replica of the install is up, into a database that holds tables unless --force (which replaces them), and unless LECTERN_SECRET_KEY is the key the archive's secrets were sealed with. The replicas migrate an older schema as they start.

For S3 backups, download the archive first. Without --yes it asks for confirmation, and refuses when there is no terminal to ask on.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> ~/.local/share/lectern/backups/lectern-backup-2026-06-12T02-00-00.tar.gz',
    '<%= config.bin %> <%= command.id %> /mnt/backups/lectern-backup-2026-06-12T02-00-00.tar.gz --yes --data-dir /var/lib/lectern',
  ]
  static override enableJsonFlag = true
  static override args = { archive: Args.string({ description: 'Path of the archive.', required: true }) }
  static override flags = {
    yes: Flags.boolean({ summary: 'Restore without asking for confirmation (scripts, containers).', default: false }),
    force: Flags.boolean({ summary: 'With DATABASE_URL: replace what the database holds, every table of its public schema (refused without it unless the database is empty).', default: false }),
  }

  async run(): Promise<RestoreResult> {
    const { args, flags } = await this.parse(Restore)
    const { config } = this.resolveConfig(flags)
    if (config.database.url !== '') return await this.intoPostgres(path.resolve(args.archive), config.database.url, dataPaths(config.dataDir).root, flags)
    if (flags.force) throw new LecternError('validation_error', '--force replaces what a PostgreSQL database holds: it needs DATABASE_URL. A restore into a data directory sets the current data aside. Nothing was changed.')
    const paths = dataPaths(config.dataDir)
    if (isLocked(paths.lock)) {
      throw new LecternError('restore_refused', `A Lectern server is running on ${paths.root}. Stop it first, then restore. Nothing was changed.`)
    }
    const archive = path.resolve(args.archive)
    const spinner = this.progress(`Validating ${path.basename(archive)}`).start()
    let summary: ArchiveSummary
    try {
      summary = (await inspectArchive(archive, paths.root)).summary
    } finally {
      spinner.stop()
    }
    this.logToStderr(describe(summary))
    await confirmed(flags.yes, `Replace the data in ${paths.root} with this archive? (the current data moves to pre-restore-<timestamp>/)`)
    const progress = this.progress('Restoring').start()
    try {
      const result = await restoreArchive(paths.root, archive)
      const previous = result.preRestoreDir ? `The previous data is in ${result.preRestoreDir}` : `${paths.root} held no data to set aside`
      progress.succeed(`Restored ${result.name}. ${previous}; start the server to use the restored data.`)
      await this.recordRestore(flags, result)
      return result
    } catch (err) {
      progress.fail('Restore failed')
      throw err
    }
  }

  /**
   * Records the restore in the restored database's audit log (src/audit/restore.ts). The restore
   * is done by then: a log that cannot be written (the archive is of another mode, say) is a
   * warning, never a failed restore.
   */
  private async recordRestore(flags: { 'data-dir'?: string; config?: string }, result: RestoreResult): Promise<void> {
    try {
      await this.withRuntime(flags, 'write', (rt) => auditRestore(rt.store, cliContext(), result, { via: 'cli' }))
    } catch (err) {
      this.warn(`The restore is done, but it could not be recorded in the audit log: ${(err as Error).message}`)
    }
  }

  /** The archive of an install on PostgreSQL, into the database DATABASE_URL names (src/backup/restore-postgres.ts). */
  private async intoPostgres(archive: string, url: string, workDir: string, flags: { yes: boolean; force: boolean; 'data-dir'?: string; config?: string }): Promise<RestoreResult> {
    const { inspectPostgresArchive, restorePostgresArchive } = await import('../src/backup/restore-postgres.js')
    const target = { url, key: secretKeyFromEnv(process.env), workDir, force: flags.force }
    const shownAs = withoutPassword(url)
    const spinner = this.progress(`Validating ${path.basename(archive)}`).start()
    let summary: ArchiveSummary
    try {
      summary = (await inspectPostgresArchive(archive, target)).summary
    } finally {
      spinner.stop()
    }
    this.logToStderr(describe(summary))
    await confirmed(flags.yes, `Restore this archive into ${shownAs}?${flags.force ? ' (what the database holds now is replaced)' : ''}`)
    const progress = this.progress(`Restoring into ${shownAs}`).start()
    try {
      const result = await restorePostgresArchive(archive, target)
      progress.succeed(`Restored ${result.name} into ${shownAs}; start the replicas to use the restored data.`)
      await this.recordRestore(flags, { ...result, preRestoreDir: null })
      return { ...result, preRestoreDir: null }
    } catch (err) {
      progress.fail('Restore failed')
      throw err
    }
  }
}

/** Asks before a restore unless `yes`; refuses without a terminal to ask on. */
async function confirmed(yes: boolean, message: string): Promise<void> {
  if (yes) return
  if (!process.stdin.isTTY) {
    throw new LecternError('restore_refused', 'No terminal to confirm on: pass --yes to restore without asking. Nothing was changed.')
  }
  if (!(await confirm({ message, default: false }))) throw new LecternError('restore_refused', 'Restore cancelled. Nothing was changed.')
}

function describe(s: ArchiveSummary): string {
  const libraries = s.libraries.map((l) => `  ${l.id}${l.partial ? ' (partial: a job was changing it)' : ''}`).join('\n')
  return `Archive ${s.name}
  created ${humanTimestamp(s.createdAt)} by Lectern ${s.appVersion}, schema ${s.schemaVersion}
  ${s.libraries.length} librar${s.libraries.length === 1 ? 'y' : 'ies'}, ${s.members} files, ${humanSize(s.bytes)} unpacked
${libraries}`
}
