import { Flags } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import type { CreatedKey } from '../../src/store/keys.js'

export default class KeysCreate extends LecternCommand {
  static override summary = 'Create a personal API key.'
  static override description =
    'The key is printed once and stored only as a hash: copy it now. Send it as "Authorization: Bearer <key>".'
  static override examples = ['<%= config.bin %> <%= command.id %> --name ci', '<%= config.bin %> <%= command.id %> --name ci --json']
  static override enableJsonFlag = true
  static override flags = {
    name: Flags.string({ summary: 'What the key is for, e.g. "ci" or "cursor-alice".', required: true }),
  }

  async run(): Promise<CreatedKey> {
    const { flags } = await this.parse(KeysCreate)
    const created = await this.withRuntime(flags, 'write', (rt) => rt.store.keys.create(flags.name))
    this.log(created.key)
    this.logToStderr(`Created key ${created.id} "${created.name}". It is shown only once; store it like a password.`)
    return created
  }
}
