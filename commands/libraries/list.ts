import { humanDate, stateColour, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { LOCAL } from '../../src/library/access.js'
import type { LibrarySummary } from '../../src/search/libraries.js'

export default class LibrariesList extends LecternCommand {
  static override summary = 'List the libraries of this install with their state and size.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true

  async run(): Promise<LibrarySummary[]> {
    const { flags } = await this.parse(LibrariesList)
    const libraries = await this.withRuntime(flags, 'read', async (rt) => await rt.catalogue.list({ caller: LOCAL }))
    if (libraries.length === 0) {
      this.log('No libraries yet. Add one with `lectern add <repository URL>`.')
      return libraries
    }
    this.log(
      table(libraries, [
        { header: 'LIBRARY', value: (l) => l.id },
        { header: 'STATE', value: (l) => stateColour(l.state) },
        { header: 'SNIPPETS', value: (l) => l.totalSnippets.toLocaleString('en'), right: true },
        { header: 'TOKENS', value: (l) => l.totalTokens.toLocaleString('en'), right: true },
        { header: 'UPDATED', value: (l) => humanDate(l.lastUpdateDate) },
        { header: 'VERSIONS', value: (l) => l.versions.join(', ') || '-' },
      ]),
    )
    return libraries
  }
}
