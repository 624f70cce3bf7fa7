import { Args } from '@oclif/core'
import { stateColour, table } from '../cli/output.js'
import { LecternCommand } from '../cli/run.js'
import { LOCAL } from '../src/library/access.js'
import type { LibrarySummary } from '../src/search/libraries.js'

export default class Search extends LecternCommand {
  static override summary = 'Find libraries by name, best match first (like GET /api/v2/libs/search).'
  static override examples = ['<%= config.bin %> <%= command.id %> fastify', '<%= config.bin %> <%= command.id %> react "manage state with hooks" --json']
  static override enableJsonFlag = true
  static override args = {
    name: Args.string({ description: 'Library name or ID; misspellings are fine.', required: true }),
    query: Args.string({ description: 'What you want to do; breaks ties between similar names.' }),
  }

  async run(): Promise<{ results: LibrarySummary[] }> {
    const { args, flags } = await this.parse(Search)
    const results = await this.withRuntime(flags, 'read', async (rt) => await rt.catalogue.search(args.name, args.query, { caller: LOCAL }))
    this.log(
      table(results, [
        { header: 'LIBRARY', value: (r) => r.id },
        { header: 'STATE', value: (r) => (r.failure ? `${stateColour(r.state)}: ${r.failure.error}, not searchable` : stateColour(r.state)) },
        { header: 'SNIPPETS', value: (r) => r.totalSnippets.toLocaleString('en'), right: true },
        { header: 'DESCRIPTION', value: (r) => r.description || r.title },
      ]),
    )
    return { results }
  }
}
