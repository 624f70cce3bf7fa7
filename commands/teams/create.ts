import { Args, Flags } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import type { Team } from '../../src/store/teams.js'
import { createTeam, requireCloud } from '../../src/tenancy/operators.js'
import { PLANS, type Plan } from '../../src/store/teams.js'

export default class TeamsCreate extends LecternCommand {
  static override summary = 'Create a teamspace with its owner.'
  static override description =
    'The plan is --plan, else the owner\'s personal plan; a teamspace needs pro or enterprise, so a free one is refused (forbidden).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> Platform --owner alice@example.com --plan pro',
    '<%= config.bin %> <%= command.id %> Research --owner alice@example.com --plan enterprise --json',
  ]
  static override enableJsonFlag = true
  static override args = { name: Args.string({ description: 'Name of the teamspace (2 to 64 letters, digits, spaces, dots, dashes, underscores).', required: true }) }
  static override flags = {
    owner: Flags.string({ summary: 'Email of the user who owns the teamspace.', required: true }),
    plan: Flags.string({ summary: 'Plan of the teamspace (default: the owner\'s personal plan).', options: [...PLANS] }),
  }

  async run(): Promise<Team> {
    const { args, flags } = await this.parse(TeamsCreate)
    const team = await this.withRuntime(flags, 'write', async (rt) => {
      requireCloud(rt.config.mode)
      return await createTeam(rt.store, { name: args.name, ownerEmail: flags.owner, plan: flags.plan as Plan | undefined })
    })
    this.log(`Created teamspace ${team.name} (plan ${team.plan}), owned by ${flags.owner.trim()}.`)
    return team
  }
}
