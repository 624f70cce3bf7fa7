import { Args } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { removeMember, requireCloud } from '../../src/tenancy/operators.js'

export default class TeamsRemoveMember extends LecternCommand {
  static override summary = 'Remove a member from a teamspace, revoking their keys for it.'
  static override examples = ['<%= config.bin %> <%= command.id %> Acme bob@example.com', '<%= config.bin %> <%= command.id %> Acme bob@example.com --json']
  static override enableJsonFlag = true
  static override args = {
    team: Args.string({ description: 'Name of the teamspace.', required: true }),
    email: Args.string({ description: 'Email of the member.', required: true }),
  }

  async run(): Promise<{ team: string; email: string; revokedKeys: number }> {
    const { args, flags } = await this.parse(TeamsRemoveMember)
    const { revokedKeys } = await this.withRuntime(flags, 'write', async (rt) => {
      requireCloud(rt.config.mode)
      return await removeMember(rt.store, args.team, args.email)
    })
    this.log(`Removed ${args.email.trim()} from ${args.team.trim()}; revoked ${revokedKeys} key${revokedKeys === 1 ? '' : 's'}.`)
    return { team: args.team.trim(), email: args.email.trim(), revokedKeys }
  }
}
