import { Args, Flags } from '@oclif/core'
import confirm from '@inquirer/confirm'
import { LecternCommand } from '../../cli/run.js'
import { LOCAL } from '../../src/library/access.js'
import { removeVersion, type RemovedVersion } from '../../src/library/admin.js'

export default class VersionsRemove extends LecternCommand {
  static override summary = 'Delete one version of a library with its snippets and vector index.'
  static override description = 'The default branch is the library itself: remove it with `lectern libraries remove`. A version whose job is running is refused; a queued job of the version is dropped with it.'
  static override examples = ['<%= config.bin %> <%= command.id %> /acme/widgets v2.0.0 --yes', '<%= config.bin %> <%= command.id %> /acme/widgets v2.0.0 --yes --json']
  static override enableJsonFlag = true
  static override args = {
    libraryId: Args.string({ description: 'Library ID.', required: true }),
    tag: Args.string({ description: 'Version tag.', required: true }),
  }
  static override flags = {
    yes: Flags.boolean({ char: 'y', summary: 'Do not ask for confirmation (needed when not on a terminal).' }),
  }

  async run(): Promise<RemovedVersion> {
    const { args, flags } = await this.parse(VersionsRemove)
    if (!flags.yes) {
      if (!process.stdin.isTTY) this.error('Refusing to delete without confirmation: pass --yes. Nothing was changed.', { exit: 2 })
      if (!(await confirm({ message: `Delete version ${args.tag} of ${args.libraryId} and its snippets?`, default: false }))) {
        this.error('Aborted; nothing was changed.', { exit: 1 })
      }
    }
    const removed = await this.withRuntime(flags, 'read', async (rt) => await removeVersion(rt.store, args.libraryId, args.tag, LOCAL))
    this.log(`Removed ${removed.id}.`)
    return removed
  }
}
