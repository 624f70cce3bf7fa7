import { Flags } from '@oclif/core'
import { AddSourceCommand, type AddSourceResult } from '../../cli/add-source.js'
import { submitSource } from '../../src/jobs/submit.js'
import { notionSubmission } from '../../src/sources/notion.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'

export default class AddNotion extends AddSourceCommand {
  static override summary = 'Add a library from Notion pages and their child pages.'
  static override description = `Reads through a stored connection (\`lectern connections add notion\`); the pages must be shared with its integration. Code blocks keep their language. The library is private (API-key holders only).

Library ID: /notion/<slug of --title>, or /notion/<connection name> without --title.`
  static override examples = ['<%= config.bin %> <%= command.id %> --connection ws --page 1f2e3d4c5b6a79881f2e3d4c5b6a7988 --title "Runbooks" --wait']
  static override enableJsonFlag = true
  static override flags = {
    connection: Flags.string({ summary: 'Name of the Notion connection.', required: true }),
    page: Flags.string({ summary: 'Page ID (repeatable).', multiple: true, required: true }),
    title: Flags.string({ summary: 'Library title; also names the library ID.' }),
    description: Flags.string({ summary: 'Library description.' }),
    wait: Flags.boolean({ char: 'w', summary: 'Wait until the library is searchable, showing progress.' }),
  }

  async run(): Promise<AddSourceResult> {
    const { flags } = await this.parse(AddNotion)
    return this.withRuntime(flags, 'write', async (runtime) => {
      const submission = await notionSubmission(runtime.store, INSTALL_CONNECTIONS, { connection: flags.connection, pageIds: flags.page, title: flags.title, description: flags.description })
      return this.follow(runtime, await submitSource(runtime.store, submission), flags.wait)
    })
  }
}
