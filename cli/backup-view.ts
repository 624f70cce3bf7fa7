/** The backup configuration as people read it (`backup config show` and `set`); --json gives the raw view. */
import type { BackupConfigView } from '../src/backup/config.js'
import { record } from './output.js'

export function renderBackupConfig(view: BackupConfigView): string {
  const d = view.destination
  const destination =
    d.type === 'dir'
      ? `directory ${d.path}`
      : `s3://${d.bucket}/${d.prefix} (region ${d.region}${d.endpoint ? `, endpoint ${d.endpoint}` : ''}${d.forcePathStyle ? ', path-style' : ''})`
  const credentials = d.type === 's3' ? (d.accessKeyId ? `access key ${d.accessKeyId}, secret ${d.secretSet ? 'set' : 'not set'}` : 'the AWS default credential chain') : undefined
  return record([
    ['Destination', destination],
    ['Credentials', credentials],
    ['Schedule', view.schedule ? `${view.schedule.expression} (${view.schedule.timeZone})` : 'off (run `lectern backup` yourself)'],
    ['Retention', view.retention.keep === 'all' ? 'keep every archive' : `keep the newest ${view.retention.keep}`],
  ])
}
