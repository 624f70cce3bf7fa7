import { humanSize, humanTimestamp } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { BackupRunner, type BackupStatus } from '../../src/backup/runner.js'

export default class BackupStatusCommand extends LecternCommand {
  static override summary = 'Show whether a backup is running, and how the last one ended.'
  static override description =
    'A backup counts as running only while a live process (the server or `lectern backup`) holds the backup lock; a run whose process died is reported as the last result, interrupted.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true

  async run(): Promise<BackupStatus> {
    const { flags } = await this.parse(BackupStatusCommand)
    const log = { info: () => {}, warn: () => {}, error: () => {} }
    const status = await this.withRuntime(flags, 'read', async (rt) => await new BackupRunner(rt.store, log).status())
    this.log(status.running ? `A backup is running (started ${status.startedAt ? humanTimestamp(status.startedAt) : 'at an unknown time'}, ${status.trigger ?? 'unknown trigger'}).` : 'No backup is running.')
    const last = status.last
    if (!last) this.log('No backup has run yet.')
    else if (last.ok) this.log(`Last backup: ${last.name} (${humanSize(last.size ?? 0)}) to ${last.destination}, finished ${humanTimestamp(last.finishedAt)}.`)
    else this.log(`Last backup failed (started ${humanTimestamp(last.startedAt)}${last.code ? `, ${last.code}` : ''}): ${last.error ?? 'no reason recorded'}`)
    return status
  }
}
