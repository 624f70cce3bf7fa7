import { LecternCommand } from '../../cli/run.js'
import { LOCAL } from '../../src/access.js'
import type { LibrarySummary } from '../../src/search/libraries.js'

export default class LibrariesList extends LecternCommand {
  static override summary = 'List the libraries of this install with their state and size.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true
  
  async run(): Promise<LibrarySummary[]> {
    const { flags } = await this.parse(LibrariesList)
    const libraries = await this.withRuntime(flags, 'read', (rt) => rt.catalogue.list({ caller: LOCAL }))
    if (libraries.length === 0) this.log('No libraries yet. Add one with `lectern add <repository URL>`.')
    for (const l of libraries) {
      const versions = l.versions.length > 0 ? `  versions: ${l.versions.join(', ')}` : ''
      this.log(`${l.id.padEnd(36)} ${l.state.padEnd(10)} ${String(l.totalSnippets).padStart(7)} snippets ${String(l.totalTokens).padStart(9)} tokens${versions}`)
    }
    return libraries
  }
}
