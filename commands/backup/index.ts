import path from 'node:path'
import { Flags } from '@oclif/core'
import { humanDuration, humanSize } from '../../cli/output.js'
import type { Progress } from '../../cli/progress.js'
import { LecternCommand } from '../../cli/run.js'
import type { BackupStage } from '../../src/backup/archive.js'
import { BackupRunner, type BackupResult } from '../../src/backup/runner.js'

const STAGES: Record<BackupStage, string> = {
  snapshot: 'Snapshotting the database (VACUUM INTO)',
  dump: 'Dumping the database (pg_dump)',
  vectors: 'Collecting vector indexes and uploaded specs',
  compress: 'Writing the archive',
  sync: 'Syncing the archive to disk',
  upload: 'Delivering the archive',
  prune: 'Applying retention',
}

/** Where the archive is: a file path for a directory destination (`dir:/path`), else the S3 URL. */
function archiveLocation(destination: string, name: string): string {
  if (destination.startsWith('dir:')) return path.join(destination.slice('dir:'.length), name)
  return `${destination.replace(/\/?$/, '/')}${name}`
}

export default class Backup extends LecternCommand {
  static override summary = 'Write a backup archive now (safe while the server runs).'
  static override description = `Snapshots the database with VACUUM INTO from a separate read-only connection, so a running server keeps serving and writing. The archive (lectern-backup-<UTC time>.tar.gz) holds the database, the vector indexes, the uploaded OpenAPI specs (uploads/), secret.key and a manifest with a sha256 for every member. With DATABASE_URL set, the archive holds a pg_dump of the database instead, taken in the same snapshot as its manifest while the replicas serve, with no key and no vector index (docs/backup.md); pg_dump comes from the host (postgresql-client). It goes to the configured destination (lectern backup config show) or to --to, and the command prints where the archive is (its path, or its s3:// URL) on stdout, the progress on stderr. Retention applies after a successful backup only.

Anyone holding an archive can read the stored credentials: keep archives as safe as the data directory.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --to /mnt/backups',
    '<%= config.bin %> <%= command.id %> --to s3://my-bucket/lectern/ --json',
  ]
  static override enableJsonFlag = true
  static override flags = {
    to: Flags.string({ summary: 'A directory or s3://bucket/prefix instead of the configured destination (S3 region, endpoint and keys come from the config).' }),
  }

  async run(): Promise<BackupResult> {
    const { flags } = await this.parse(Backup)
    const log = { info: () => {}, warn: (o: object, m: string) => this.warn(Object.keys(o).length > 0 ? `${m} ${JSON.stringify(o)}` : m), error: () => {} }
    // Started once the data directory opened: a refused directory is one line, with no progress before it.
    let spinner: Progress | undefined
    try {
      const result = await this.withRuntime(flags, 'read', async (rt) => {
        const progress = this.progress('Starting the backup').start()
        spinner = progress
        return (await new BackupRunner(rt.store, log).start({ trigger: 'cli', target: flags.to, onProgress: (stage) => void (progress.text = STAGES[stage]) })).done
      })
      spinner?.succeed(`Wrote ${result.name} (${humanSize(result.size ?? 0)}) to ${result.destination} in ${humanDuration(result.durationMs / 1000)}`)
      // stdout is the archive alone, for scripts: `archive=$(lectern backup)`.
      this.log(archiveLocation(result.destination, result.name!))
      if (result.partialLibraries?.length) this.warn(`A job was changing these libraries; the archive holds their last finished data: ${result.partialLibraries.join(', ')}`)
      if (result.pruned?.removed.length) this.log(`Pruned ${result.pruned.removed.length} old archive(s): ${result.pruned.removed.join(', ')}`)
      return result
    } catch (err) {
      spinner?.fail('Backup failed; no archive was written')
      throw err
    }
  }
}
