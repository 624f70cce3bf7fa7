import { Args, Flags } from '@oclif/core'
import { audit, cliContext } from '../../src/audit/log.js'
import { readPassword } from '../../cli/password.js'
import { LecternCommand } from '../../cli/run.js'
import type { User } from '../../src/store/users.js'

export default class AdminCreate extends LecternCommand {
  static override summary = 'Create an admin user (for the dashboard and the backup endpoints).'
  static override description =
    'The password is asked for on a terminal, or read from standard input when it is not one (e.g. from a secrets file). At least 12 characters.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> ops@example.com',
    'cat admin-password.txt | <%= config.bin %> <%= command.id %> ops@example.com',
  ]
  static override enableJsonFlag = true
  static override args = { email: Args.string({ description: 'Email address the admin logs in with.', required: true }) }
  static override flags = {
    role: Flags.string({ summary: 'admin, or member (no access to admin endpoints).', options: ['admin', 'member'], default: 'admin' }),
  }

  async run(): Promise<User> {
    const { args, flags } = await this.parse(AdminCreate)
    const secret = await readPassword(args.email)
    const user = await this.withRuntime(flags, 'write', (rt) =>
      rt.store.transaction(async () => {
        const created = await rt.store.users.create({ email: args.email, password: secret, role: flags.role as User['role'] })
        await audit(rt.store, cliContext(), 'user.created', created.email, { role: created.role })
        return created
      }),
    )
    this.log(`Created ${user.role} ${user.email}.`)
    return user
  }
}
