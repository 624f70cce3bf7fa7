import { Args } from '@oclif/core'
import { LecternCommand } from '../../../cli/run.js'
import { requireCloud, setPlan, type PlanChange } from '../../../src/tenancy/operators.js'
import { PLAN_LIMITS } from '../../../src/tenancy/plans.js'
import { PLANS, type Plan } from '../../../src/store/teams.js'

export default class TeamsPlanSet extends LecternCommand {
  static override summary = 'Set the plan of a teamspace or personal space: free, pro or enterprise.'
  static override description =
    'The plan sets its member limit, its request rate per key and whether it may add private sources. A plan whose member limit is below the members and pending invitations is refused (forbidden) with how many to remove. On the free plan a team keeps its private libraries readable, but adding private sources is refused.'
  static override examples = ['<%= config.bin %> <%= command.id %> Acme enterprise', '<%= config.bin %> <%= command.id %> Acme pro --json']
  static override enableJsonFlag = true
  static override args = {
    team: Args.string({ description: 'Name of the teamspace (a personal space is named by its email).', required: true }),
    plan: Args.string({ description: 'The plan.', options: [...PLANS], required: true }),
  }

  async run(): Promise<PlanChange['team'] & Pick<PlanChange, 'privateLibraries'>> {
    const { args, flags } = await this.parse(TeamsPlanSet)
    const { team, privateLibraries } = await this.withRuntime(flags, 'write', async (rt) => {
      requireCloud(rt.config.mode)
      return await setPlan(rt.store, args.team, args.plan as Plan)
    })
    this.log(`${team.name} is now on the ${team.plan} plan.`)
    if (privateLibraries.length > 0 && !PLAN_LIMITS[team.plan].privateSources) {
      this.log(`Its ${privateLibraries.length} private librar${privateLibraries.length === 1 ? 'y stays' : 'ies stay'} readable (${privateLibraries.join(', ')}); adding private sources is refused on the ${team.plan} plan.`)
    }
    return { ...team, privateLibraries }
  }
}
