import { Flags } from '@oclif/core'
import { AddSourceCommand, type AddSourceResult } from '../../cli/add-source.js'
import { submitSource } from '../../src/jobs/submit.js'
import { confluenceSubmission } from '../../src/sources/confluence.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'

export default class AddConfluence extends AddSourceCommand {
  static override summary = 'Add a library from a Confluence space (Cloud or Data Center), or some of its pages.'
  static override description = `Reads through a stored connection (\`lectern connections add confluence\`). Each page becomes a document; code macros keep their language. The library is private (API-key holders only).

Library ID: /confluence/<slug of --title>, or /confluence/<space key, lower-case> without --title.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --connection acme --space DOCS --wait',
    '<%= config.bin %> <%= command.id %> --connection acme --space DOCS --page 123456 --page 123789 --title "Deploy guide"',
  ]
  static override enableJsonFlag = true
  static override flags = {
    connection: Flags.string({ summary: 'Name of the Confluence connection.', required: true }),
    space: Flags.string({ summary: 'Space key, e.g. DOCS.', required: true }),
    page: Flags.string({ summary: 'Only this page ID (repeatable); the whole space when omitted.', multiple: true }),
    title: Flags.string({ summary: 'Library title; also names the library ID.' }),
    description: Flags.string({ summary: 'Library description.' }),
    wait: Flags.boolean({ char: 'w', summary: 'Wait until the library is searchable, showing progress.' }),
  }

  async run(): Promise<AddSourceResult> {
    const { flags } = await this.parse(AddConfluence)
    return this.withRuntime(flags, 'write', async (runtime) => {
      const submission = await confluenceSubmission(runtime.store, INSTALL_CONNECTIONS, {
        connection: flags.connection,
        spaceKey: flags.space,
        pageIds: flags.page,
        title: flags.title,
        description: flags.description,
      })
      return this.follow(runtime, await submitSource(runtime.store, submission), flags.wait)
    })
  }
}
