import { Args, Flags } from '@oclif/core'
import confirm from '@inquirer/confirm'
import { LecternCommand } from '../../cli/run.js'
import { LOCAL } from '../../src/library/access.js'
import { findTeam, requireCloud } from '../../src/tenancy/operators.js'
import { deleteTeam } from '../../src/tenancy/teamspaces.js'

export default class TeamsDelete extends LecternCommand {
  static override summary = 'Delete a teamspace with its private libraries, members, keys and invitations.'
  static override description =
    'As its owner\'s DELETE /api/teams/:team does: a private library being processed refuses (library_busy) and nothing is deleted. A personal space cannot be deleted.'
  static override examples = ['<%= config.bin %> <%= command.id %> Acme --yes', '<%= config.bin %> <%= command.id %> Acme --yes --json']
  static override enableJsonFlag = true
  static override args = { team: Args.string({ description: 'Name of the teamspace.', required: true }) }
  static override flags = {
    yes: Flags.boolean({ char: 'y', summary: 'Do not ask for confirmation (needed when not on a terminal).' }),
  }

  async run(): Promise<{ removed: string; libraries: string[] }> {
    const { args, flags } = await this.parse(TeamsDelete)
    if (!flags.yes) {
      if (!process.stdin.isTTY) this.error('Refusing to delete without confirmation: pass --yes. Nothing was changed.', { exit: 2 })
      if (!(await confirm({ message: `Delete the teamspace ${args.team} with its private libraries, members and keys?`, default: false }))) {
        this.error('Aborted; nothing was changed.', { exit: 1 })
      }
    }
    const deleted = await this.withRuntime(flags, 'write', async (rt) => {
      requireCloud(rt.config.mode)
      return await deleteTeam(rt.store, await findTeam(rt.store, args.team), LOCAL, rt.forgetSet)
    })
    this.log(`Deleted the teamspace ${deleted.removed}${deleted.libraries.length > 0 ? ` and its private libraries ${deleted.libraries.join(', ')}` : ''}.`)
    return deleted
  }
}
