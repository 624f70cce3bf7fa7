import { Args, Flags } from '@oclif/core'
import { humanDate, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import type { Invitation } from '../../src/store/invitations.js'
import { cancelInvitation, listInvitations, requireCloud } from '../../src/tenancy/operators.js'

export default class TeamsInvitations extends LecternCommand {
  static override summary = "List a teamspace's pending invitations, or cancel one."
  static override description = 'A pending invitation counts toward the plan\'s member limit until it is accepted, cancelled or expires; cancelling one stops its link from working.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> Acme',
    '<%= config.bin %> <%= command.id %> Acme --cancel dave@example.com',
    '<%= config.bin %> <%= command.id %> Acme --json',
  ]
  static override enableJsonFlag = true
  static override args = { team: Args.string({ description: 'Name of the teamspace.', required: true }) }
  static override flags = { cancel: Flags.string({ summary: 'Cancel the pending invitation of this email address.' }) }

  async run(): Promise<Invitation[] | Invitation> {
    const { args, flags } = await this.parse(TeamsInvitations)
    const { cancel } = flags
    if (cancel !== undefined) {
      const cancelled = await this.withRuntime(flags, 'write', async (rt) => {
        requireCloud(rt.config.mode)
        return await cancelInvitation(rt.store, args.team, cancel)
      })
      this.log(`Cancelled the invitation of ${cancelled.email} to ${args.team}.`)
      return cancelled
    }
    const invitations = await this.withRuntime(flags, 'read', async (rt) => {
      requireCloud(rt.config.mode)
      return await listInvitations(rt.store, args.team)
    })
    this.log(
      table(invitations, [
        { header: 'EMAIL', value: (i) => i.email },
        { header: 'ROLE', value: (i) => i.role },
        { header: 'EXPIRES', value: (i) => humanDate(i.expiresAt) },
      ]),
    )
    return invitations
  }
}
