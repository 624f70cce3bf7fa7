import { Args } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { renameLibrary } from '../../src/library/admin.js'

export default class LibrariesRename extends LecternCommand {
  static override summary = 'Move a library to a new ID, leaving a redirect at the old one.'
  static override description = 'Requests naming the old ID get 301 library_redirected with the new ID in redirectUrl.'
  static override examples = ['<%= config.bin %> <%= command.id %> /acme/widgets /acme/widgets-core']
  static override enableJsonFlag = true
  static override args = {
    from: Args.string({ description: 'Current library ID.', required: true }),
    to: Args.string({ description: 'New library ID.', required: true }),
  }
  
  async run(): Promise<{ from: string; to: string }> {
    const { args, flags } = await this.parse(LibrariesRename)
    const library = await this.withRuntime(flags, 'read', async (rt) => await renameLibrary(rt.store, args.from, args.to))
    this.log(`Renamed ${args.from} to ${library.id}; the old ID now redirects.`)
    return { from: args.from, to: library.id }
  }
}
