import { Flags } from '@oclif/core'
import { humanDate, humanSize, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { openDestination } from '../../src/backup/config.js'
import type { ArchiveInfo } from '../../src/backup/destinations.js'

export default class BackupList extends LecternCommand {
  static override summary = 'List the archives at the backup destination, newest first.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --to s3://my-bucket/lectern/ --json']
  static override enableJsonFlag = true
  static override flags = {
    to: Flags.string({ summary: 'A directory or s3://bucket/prefix instead of the configured destination.' }),
  }

  async run(): Promise<{ destination: string; backups: ArchiveInfo[] }> {
    const { flags } = await this.parse(BackupList)
    const result = await this.withRuntime(flags, 'read', async (rt) => {
      const destination = await openDestination(rt.store, flags.to)
      return { destination: destination.label, backups: await destination.list() }
    })
    if (result.backups.length === 0) {
      this.log(`No archives at ${result.destination}. Write one with \`lectern backup\`.`)
      return result
    }
    this.log(`${result.backups.length} ${result.backups.length === 1 ? 'archive' : 'archives'} at ${result.destination}:\n`)
    this.log(
      table(result.backups, [
        { header: 'ARCHIVE', value: (b) => b.name },
        { header: 'SIZE', value: (b) => humanSize(b.size), right: true },
        { header: 'CREATED', value: (b) => humanDate(b.createdAt) },
      ]),
    )
    return result
  }
}
