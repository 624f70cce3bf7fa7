import { LecternCommand } from '../../cli/run.js'
import type { ApiKeyInfo } from '../../src/store/keys.js'

export default class KeysList extends LecternCommand {
  static override summary = 'List API keys (never the keys themselves).'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true
  
  async run(): Promise<ApiKeyInfo[]> {
    const { flags } = await this.parse(KeysList)
    const keys = await this.withRuntime(flags, 'read', (rt) => rt.store.keys.list())
    if (keys.length === 0) this.log('No API keys. Create one with `lectern keys create --name <name>`.')
    for (const k of keys) {
      const status = k.revokedAt ? `revoked ${k.revokedAt}` : `last used ${k.lastUsedAt ?? 'never'}`
      this.log(`${String(k.id).padEnd(4)} ${k.preview.padEnd(16)} ${k.name.padEnd(24)} created ${k.createdAt}  ${status}`)
    }
    return keys
  }
}
