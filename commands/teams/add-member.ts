import { Args, Flags } from '@oclif/core'
import { cliContext } from '../../src/audit/log.js'
import { LecternCommand } from '../../cli/run.js'
import type { Member } from '../../src/store/teams.js'
import { addMember, requireCloud } from '../../src/tenancy/operators.js'

export default class TeamsAddMember extends LecternCommand {
  static override summary = 'Add a user to a teamspace as admin or developer.'
  static override description = 'Refused (forbidden) past the plan\'s member limit: free 1, pro 10, enterprise unlimited.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> Acme carol@example.com --role developer',
    '<%= config.bin %> <%= command.id %> Acme carol@example.com --role admin --json',
  ]
  static override enableJsonFlag = true
  static override args = {
    team: Args.string({ description: 'Name of the teamspace.', required: true }),
    email: Args.string({ description: 'Email of the user to add.', required: true }),
  }
  static override flags = {
    role: Flags.string({ summary: 'Role in the teamspace (the owner is set when it is created).', options: ['admin', 'developer'], required: true }),
  }

  async run(): Promise<Member> {
    const { args, flags } = await this.parse(TeamsAddMember)
    const member = await this.withRuntime(flags, 'write', async (rt) => {
      requireCloud(rt.config.mode)
      return await addMember(rt.store, cliContext(), args.team, args.email, flags.role as 'admin' | 'developer')
    })
    this.log(`Added ${member.email} to ${args.team.trim()} as ${member.role}.`)
    return member
  }
}
