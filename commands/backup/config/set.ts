import path from 'node:path'
import { audit, cliContext } from '../../../src/audit/log.js'
import { text } from 'node:stream/consumers'
import { Flags } from '@oclif/core'
import { renderBackupConfig } from '../../../cli/backup-view.js'
import { LecternCommand } from '../../../cli/run.js'
import { readBackupConfig, updateBackupConfig, type BackupConfigUpdate, type BackupConfigView, type S3Config, backupConfigFacts } from '../../../src/backup/config.js'
import { SCHEDULE_PRESETS } from '../../../src/backup/schedule.js'
import { LecternError } from '../../../src/errors.js'

export default class BackupConfigSet extends LecternCommand {
  static override summary = 'Change the backup destination, schedule or retention; a running server picks it up within a minute.'
  static override description = `Flags left out keep their value. S3 fields not given keep the stored S3 values. The S3 secret comes from an environment variable (--s3-secret-env) or standard input (--s3-secret-stdin), never from an argument; it is stored sealed with secret.key.

Schedule presets: ${Object.keys(SCHEDULE_PRESETS).join(', ')}; or a 5-field cron expression; or "off".`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --dir /mnt/backups --schedule daily --keep 7',
    'AWS_SECRET=... <%= config.bin %> <%= command.id %> --s3-bucket backups --s3-access-key-id AKIA... --s3-secret-env AWS_SECRET --s3-prefix lectern/',
    '<%= config.bin %> <%= command.id %> --schedule "30 1 * * 1-5" --time-zone Europe/Berlin',
  ]
  static override enableJsonFlag = true
  static override flags = {
    dir: Flags.string({ summary: 'Write archives to this directory (local or network mount).', exclusive: ['s3-bucket'] }),
    'default-dir': Flags.boolean({ summary: 'Write archives to the data directory\'s backups/ (the default).', exclusive: ['dir', 's3-bucket'] }),
    's3-bucket': Flags.string({ summary: 'Write archives to this S3 bucket.' }),
    's3-region': Flags.string({ summary: 'S3 region (default us-east-1).' }),
    's3-access-key-id': Flags.string({ summary: 'Static access key ID; leave blank ("") for the AWS default credential chain.' }),
    's3-secret-env': Flags.string({ summary: 'Name of the environment variable holding the S3 secret access key.', exclusive: ['s3-secret-stdin'] }),
    's3-secret-stdin': Flags.boolean({ summary: 'Read the S3 secret access key from standard input.' }),
    's3-endpoint': Flags.string({ summary: 'Custom endpoint for S3-compatible stores (MinIO, Ceph); "" for AWS.' }),
    's3-path-style': Flags.boolean({ summary: 'Path-style addressing (most MinIO setups).', allowNo: true }),
    's3-prefix': Flags.string({ summary: 'Key prefix inside the bucket, e.g. lectern/.' }),
    schedule: Flags.string({ summary: 'daily, every-6-hours, weekly, a 5-field cron expression, or off.' }),
    'time-zone': Flags.string({ summary: 'IANA time zone of the schedule (default UTC).' }),
    keep: Flags.string({ summary: 'Keep the newest N archives (N >= 1), or "all".' }),
  }

  async run(): Promise<BackupConfigView> {
    const { flags } = await this.parse(BackupConfigSet)
    const secret = flags['s3-secret-env'] !== undefined ? readEnv(flags['s3-secret-env']) : flags['s3-secret-stdin'] ? (await text(process.stdin)).trim() : undefined
    const view = await this.withRuntime(flags, 'write', async (rt) => {
      const current = await readBackupConfig(rt.store)
      const update: BackupConfigUpdate = {}
      if (flags.dir) update.destination = { type: 'dir', path: path.resolve(flags.dir) }
      if (flags['default-dir']) update.destination = { type: 'dir', path: null }
      const s3Flags = ['s3-bucket', 's3-region', 's3-access-key-id', 's3-endpoint', 's3-path-style', 's3-prefix'] as const
      if (s3Flags.some((f) => flags[f] !== undefined) || secret !== undefined) {
        const base: Partial<S3Config> = current.destination.type === 's3' ? current.destination : {}
        const bucket = flags['s3-bucket'] ?? base.bucket
        if (!bucket) throw new LecternError('validation_error', 'An S3 destination needs --s3-bucket.')
        update.destination = {
          type: 's3',
          bucket,
          region: flags['s3-region'] ?? base.region,
          accessKeyId: flags['s3-access-key-id'] ?? base.accessKeyId,
          endpoint: flags['s3-endpoint'] ?? base.endpoint,
          forcePathStyle: flags['s3-path-style'] ?? base.forcePathStyle,
          prefix: flags['s3-prefix'] ?? base.prefix,
          ...(secret !== undefined ? { secretAccessKey: secret } : {}),
        }
      }
      if (flags.schedule !== undefined) {
        update.schedule = flags.schedule === 'off' ? null : { expression: flags.schedule, timeZone: flags['time-zone'] ?? current.schedule?.timeZone ?? 'UTC' }
      } else if (flags['time-zone'] !== undefined) {
        if (!current.schedule) throw new LecternError('validation_error', 'Set a --schedule before its --time-zone.')
        update.schedule = { ...current.schedule, timeZone: flags['time-zone'] }
      }
      if (flags.keep !== undefined) update.retention = { keep: flags.keep === 'all' ? 'all' : Number(flags.keep) }
      const updated = await updateBackupConfig(rt.store, update)
      await audit(rt.store, cliContext(), 'settings.changed', 'backup.config', backupConfigFacts(updated))
      return updated
    })
    this.log(renderBackupConfig(view))
    return view
  }
}

function readEnv(name: string): string {
  const value = process.env[name]
  if (value === undefined) throw new LecternError('validation_error', `The environment variable ${name} (--s3-secret-env) is not set.`)
  return value
}
