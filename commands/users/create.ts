import { Args } from '@oclif/core'
import { cliContext } from '../../src/audit/log.js'
import { readPassword } from '../../cli/password.js'
import { LecternCommand } from '../../cli/run.js'
import type { Team } from '../../src/store/teams.js'
import type { User } from '../../src/store/users.js'
import { createUser } from '../../src/tenancy/operators.js'

export default class UsersCreate extends LecternCommand {
  static override summary = 'Create a user (a member: no access to admin endpoints).'
  static override description =
    'The password is asked for on a terminal, or read from standard input when it is not one. At least 12 characters. In cloud mode the user gets their personal space (plan free) at once.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> dana@example.com',
    'cat dana-password.txt | <%= config.bin %> <%= command.id %> dana@example.com --json',
  ]
  static override enableJsonFlag = true
  static override args = { email: Args.string({ description: 'Email address the user signs in with.', required: true }) }

  async run(): Promise<User & { personalTeam: Team | null }> {
    const { args, flags } = await this.parse(UsersCreate)
    const secret = await readPassword(args.email)
    const { user, personalTeam } = await this.withRuntime(flags, 'write', (rt) => createUser(rt.store, rt.config.mode, cliContext(), { email: args.email, password: secret }))
    this.log(`Created user ${user.email}${personalTeam ? ` with the personal space ${personalTeam.name} (plan ${personalTeam.plan})` : ''}.`)
    return { ...user, personalTeam }
  }
}
