import { renderBackupConfig } from '../../../cli/backup-view.js'
import { LecternCommand } from '../../../cli/run.js'
import { viewBackupConfig, type BackupConfigView } from '../../../src/backup/config.js'

export default class BackupConfigShow extends LecternCommand {
  static override summary = 'Show the backup destination, schedule and retention (never the S3 secret).'
  static override examples = ['<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true
  
  async run(): Promise<BackupConfigView> {
    const { flags } = await this.parse(BackupConfigShow)
    const view = await this.withRuntime(flags, 'read', async (rt) => await viewBackupConfig(rt.store))
    this.log(renderBackupConfig(view))
    return view
  }
}
