import { Args, Flags } from '@oclif/core'
import confirm from '@inquirer/confirm'
import { LecternCommand } from '../../cli/run.js'
import { LOCAL } from '../../src/library/access.js'
import { removeLibrary, type RemovedLibrary } from '../../src/library/admin.js'

export default class LibrariesRemove extends LecternCommand {
  static override summary = 'Delete a library with all its versions, snippets and vector indexes.'
  static override description = 'A library whose job is running is refused; its queued jobs are dropped with it.'
  static override examples = ['<%= config.bin %> <%= command.id %> /acme/widgets', '<%= config.bin %> <%= command.id %> /acme/widgets --yes']
  static override enableJsonFlag = true
  static override args = { id: Args.string({ description: 'Library ID.', required: true }) }
  static override flags = {
    yes: Flags.boolean({ char: 'y', summary: 'Do not ask for confirmation (needed when not on a terminal).' }),
  }

  async run(): Promise<RemovedLibrary> {
    const { args, flags } = await this.parse(LibrariesRemove)
    if (!flags.yes) {
      if (!process.stdin.isTTY) this.error('Refusing to delete without confirmation: pass --yes. Nothing was changed.', { exit: 2 })
      if (!(await confirm({ message: `Delete ${args.id} and all its snippets?`, default: false }))) {
        this.error('Aborted; nothing was changed.', { exit: 1 })
      }
    }
    const removed = await this.withRuntime(flags, 'read', async (rt) => await removeLibrary(rt.store, args.id, LOCAL))
    this.log(`Removed ${removed.id}.`)
    return removed
  }
}
