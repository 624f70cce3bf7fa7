import { humanDate, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import type { User } from '../../src/store/users.js'

export default class UsersList extends LecternCommand {
  static override summary = 'List the users of this install (admins and members).'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true

  async run(): Promise<User[]> {
    const { flags } = await this.parse(UsersList)
    const users = await this.withRuntime(flags, 'read', async (rt) => await rt.store.users.list())
    if (users.length === 0) {
      this.log('No users. Create one with `lectern users create <email>`.')
      return users
    }
    this.log(
      table(users, [
        { header: 'ID', value: (u) => String(u.id), right: true },
        { header: 'EMAIL', value: (u) => u.email },
        { header: 'ROLE', value: (u) => u.role },
        { header: 'CREATED', value: (u) => humanDate(u.createdAt) },
      ]),
    )
    return users
  }
}
