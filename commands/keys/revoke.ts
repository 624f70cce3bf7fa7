import { Args } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { cliContext } from '../../src/audit/log.js'
import { revokeKey } from '../../src/tenancy/keys.js'
import type { ApiKeyInfo } from '../../src/store/keys.js'

export default class KeysRevoke extends LecternCommand {
  static override summary = 'Revoke an API key; requests with it get 401 from then on.'
  static override examples = ['<%= config.bin %> <%= command.id %> 3']
  static override enableJsonFlag = true
  static override args = { id: Args.integer({ description: 'Key ID, as `lectern keys list` shows it.', required: true }) }
  
  async run(): Promise<ApiKeyInfo> {
    const { args, flags } = await this.parse(KeysRevoke)
    const key = await this.withRuntime(flags, 'read', async (rt) => await revokeKey(rt.store, cliContext(), args.id))
    this.log(`Revoked key ${key.id} "${key.name}".`)
    return key
  }
}
