import { Flags } from '@oclif/core'
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
      const destination = openDestination(rt.store, flags.to)
      return { destination: destination.label, backups: await destination.list() }
    })
    this.log(`${result.backups.length} archive(s) at ${result.destination}`)
    for (const b of result.backups) this.log(`${b.name}  ${b.size} bytes`)
    return result
  }
}
