import { Args } from '@oclif/core'
import { LecternCommand } from '../../../cli/run.js'
import type { Team } from '../../../src/store/teams.js'
import { requireCloud, setPlan } from '../../../src/tenancy/operators.js'
import { PLANS, type Plan } from '../../../src/tenancy/plans.js'

export default class TeamsPlanSet extends LecternCommand {
  static override summary = 'Set the plan of a teamspace or personal space: free, pro or enterprise.'
  static override description = 'The plan sets its member limit, its request rate per key and whether it may add private sources.'
  static override examples = ['<%= config.bin %> <%= command.id %> Acme enterprise', '<%= config.bin %> <%= command.id %> Acme pro --json']
  static override enableJsonFlag = true
  static override args = {
    team: Args.string({ description: 'Name of the teamspace (a personal space is named by its email).', required: true }),
    plan: Args.string({ description: 'The plan.', options: [...PLANS], required: true }),
  }

  async run(): Promise<Team> {
    const { args, flags } = await this.parse(TeamsPlanSet)
    const team = await this.withRuntime(flags, 'write', (rt) => {
      requireCloud(rt.config.mode)
      return setPlan(rt.store, args.team, args.plan as Plan)
    })
    this.log(`${team.name} is now on the ${team.plan} plan.`)
    return team
  }
}
