import { humanDate, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { listTeams, requireCloud, type TeamSummary } from '../../src/tenancy/operators.js'

export default class TeamsList extends LecternCommand {
  static override summary = 'List teamspaces and personal spaces, with their plan, owner and member count.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true

  async run(): Promise<TeamSummary[]> {
    const { flags } = await this.parse(TeamsList)
    const teams = await this.withRuntime(flags, 'read', async (rt) => {
      requireCloud(rt.config.mode)
      return await listTeams(rt.store)
    })
    if (teams.length === 0) {
      this.log('No teamspaces. Create one with `lectern teams create <name> --owner <email>`.')
      return teams
    }
    this.log(
      table(teams, [
        { header: 'NAME', value: (t) => t.name },
        { header: 'KIND', value: (t) => (t.personalUserId === null ? 'teamspace' : 'personal') },
        { header: 'PLAN', value: (t) => t.plan },
        { header: 'OWNER', value: (t) => t.owner },
        { header: 'MEMBERS', value: (t) => String(t.members), right: true },
        { header: 'CREATED', value: (t) => humanDate(t.createdAt) },
      ]),
    )
    return teams
  }
}
