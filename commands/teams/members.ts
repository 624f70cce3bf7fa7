import { Args } from '@oclif/core'
import { humanDate, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import type { Member } from '../../src/store/teams.js'
import { listMembers, requireCloud } from '../../src/tenancy/operators.js'

export default class TeamsMembers extends LecternCommand {
  static override summary = 'List the members of a teamspace with their roles.'
  static override examples = ['<%= config.bin %> <%= command.id %> Acme', '<%= config.bin %> <%= command.id %> Acme --json']
  static override enableJsonFlag = true
  static override args = { team: Args.string({ description: 'Name of the teamspace.', required: true }) }

  async run(): Promise<Member[]> {
    const { args, flags } = await this.parse(TeamsMembers)
    const members = await this.withRuntime(flags, 'read', async (rt) => {
      requireCloud(rt.config.mode)
      return await listMembers(rt.store, args.team)
    })
    this.log(
      table(members, [
        { header: 'EMAIL', value: (m) => m.email },
        { header: 'ROLE', value: (m) => m.role },
        { header: 'JOINED', value: (m) => humanDate(m.joinedAt) },
      ]),
    )
    return members
  }
}
