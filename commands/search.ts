import { Args } from '@oclif/core'
import { LecternCommand } from '../cli/run.js'
import { LOCAL } from '../src/access.js'
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
    const results = await this.withRuntime(flags, 'read', (rt) => rt.catalogue.search(args.name, args.query, { caller: LOCAL }))
    for (const r of results) {
      const state = r.failure ? `${r.state}: ${r.failure.error}, not searchable` : r.state
      this.log(`${r.id}  ${r.title} (${state}, ${r.totalSnippets} snippets)${r.description ? `\n    ${r.description}` : ''}`)
    }
    return { results }
  }
}
