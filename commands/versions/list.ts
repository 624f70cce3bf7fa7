import { Args } from '@oclif/core'
import { humanDate, stateColour, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { LOCAL } from '../../src/library/access.js'
import { findLibrary } from '../../src/search/resolve.js'

interface VersionRow {
  tag: string
  title: string
  state: string
  totalSnippets: number
  commit: string | null
  updatedAt: string
}

export default class VersionsList extends LecternCommand {
  static override summary = 'List the versions of a library (the default branch first).'
  static override examples = ['<%= config.bin %> <%= command.id %> /fastify/fastify']
  static override enableJsonFlag = true
  static override args = { libraryId: Args.string({ description: 'Library ID.', required: true }) }

  async run(): Promise<VersionRow[]> {
    const { args, flags } = await this.parse(VersionsList)
    const rows = await this.withRuntime(flags, 'read', async (runtime) => {
      const { library } = await findLibrary(runtime.store.libraries, args.libraryId, LOCAL)
      return (await runtime.store.libraries.versions(library.pk)).map((v) => ({
        tag: v.tag,
        title: v.title,
        state: v.state,
        totalSnippets: v.totalSnippets,
        commit: v.commitSha,
        updatedAt: v.updatedAt,
      }))
    })
    this.log(
      table(rows, [
        { header: 'VERSION', value: (v) => v.tag || '(default branch)' },
        { header: 'STATE', value: (v) => stateColour(v.state) },
        { header: 'SNIPPETS', value: (v) => v.totalSnippets.toLocaleString('en'), right: true },
        { header: 'COMMIT', value: (v) => v.commit?.slice(0, 12) ?? '-' },
        { header: 'UPDATED', value: (v) => humanDate(v.updatedAt) },
      ]),
    )
    return rows
  }
}
