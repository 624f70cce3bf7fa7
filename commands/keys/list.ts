import { colour, humanDate, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import type { ApiKeyInfo } from '../../src/store/keys.js'

export default class KeysList extends LecternCommand {
  static override summary = 'List API keys (never the keys themselves).'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true

  async run(): Promise<ApiKeyInfo[]> {
    const { flags } = await this.parse(KeysList)
    const keys = await this.withRuntime(flags, 'read', (rt) => rt.store.keys.list())
    if (keys.length === 0) {
      this.log('No API keys. Create one with `lectern keys create --name <name>`.')
      return keys
    }
    this.log(
      table(keys, [
        { header: 'ID', value: (k) => String(k.id), right: true },
        { header: 'NAME', value: (k) => k.name },
        { header: 'KEY', value: (k) => k.preview },
        { header: 'CREATED', value: (k) => humanDate(k.createdAt) },
        { header: 'LAST USED', value: (k) => (k.lastUsedAt ? humanDate(k.lastUsedAt) : 'never') },
        { header: 'STATUS', value: (k) => (k.revokedAt ? colour.red(`revoked ${humanDate(k.revokedAt)}`) : colour.green('active')) },
      ]),
    )
    return keys
  }
}
