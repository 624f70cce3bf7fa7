import { Flags } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import type { CreatedKey } from '../../src/store/keys.js'
import { cliContext } from '../../src/audit/log.js'
import { createKey } from '../../src/tenancy/keys.js'
import { createUserKey } from '../../src/tenancy/operators.js'

export default class KeysCreate extends LecternCommand {
  static override summary = 'Create an API key, of the install or of a user.'
  static override description =
    'The key is printed once and stored only as a hash: copy it now. Send it as "Authorization: Bearer <key>". With --user the key is that user\'s: on-premise it reaches the libraries granted to them; in the cloud it works in --team (of which they must be a member), by default their personal space.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --name ci',
    '<%= config.bin %> <%= command.id %> --name ci --json',
    '<%= config.bin %> <%= command.id %> --name cursor-bob --user bob@example.com --team Acme',
  ]
  static override enableJsonFlag = true
  static override flags = {
    name: Flags.string({ summary: 'What the key is for, e.g. "ci" or "cursor-alice".', required: true }),
    user: Flags.string({ summary: 'Email of the user who owns the key.' }),
    team: Flags.string({ summary: 'Teamspace the key works in (default with --user in the cloud: their personal space).', dependsOn: ['user'] }),
  }

  async run(): Promise<CreatedKey> {
    const { flags } = await this.parse(KeysCreate)
    const { user, team } = flags
    const created = await this.withRuntime(flags, 'write', async (rt) =>
      user === undefined ? await createKey(rt.store, cliContext(), flags.name) : await createUserKey(rt.store, rt.config.mode, cliContext(), { name: flags.name, email: user, teamName: team }),
    )
    this.log(created.key)
    this.logToStderr(`Created key ${created.id} "${created.name}". It is shown only once; store it like a password.`)
    return created
  }
}
