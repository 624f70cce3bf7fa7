import { Args, Flags } from '@oclif/core'
import { AddSourceCommand, type AddSourceResult } from '../../cli/add-source.js'
import { submitSource } from '../../src/jobs/submit.js'
import { llmstxtSubmission } from '../../src/sources/llmstxt.js'

export default class AddLlmsTxt extends AddSourceCommand {
  static override summary = 'Add a library from an llms.txt file (or llms-full.txt / llms-small.txt).'
  static override description = `Queues a job that reads the llms.txt index and fetches the Markdown pages it links on the same site (at most 200, the "Optional" section last); an llms-full.txt is indexed as one document.

Library ID: /llmstxt/<host-path>, e.g. https://docs.example.com/llms.txt -> /llmstxt/docs.example.com-llms.txt.`
  static override examples = ['<%= config.bin %> <%= command.id %> https://docs.example.com/llms.txt --wait']
  static override enableJsonFlag = true
  static override args = { url: Args.string({ description: 'URL of the llms.txt file.', required: true }) }
  static override flags = {
    wait: Flags.boolean({ char: 'w', summary: 'Wait until the library is searchable, showing progress.' }),
  }

  async run(): Promise<AddSourceResult> {
    const { args, flags } = await this.parse(AddLlmsTxt)
    const submission = llmstxtSubmission(args.url)
    return this.withRuntime(flags, 'write', async (runtime) => this.follow(runtime, await submitSource(runtime.store, submission), flags.wait))
  }
}
