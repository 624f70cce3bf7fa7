import { Args, Flags } from '@oclif/core'
import { AddSourceCommand, type AddSourceResult } from '../../cli/add-source.js'
import { submitSource } from '../../src/jobs/submit.js'
import { websiteSubmission } from '../../src/sources/website.js'

export default class AddWebsite extends AddSourceCommand {
  static override summary = 'Add a library by crawling a documentation website.'
  static override description = `Queues a job that crawls the site breadth-first within the base URL (default: the start URL's directory), honouring robots.txt and seeding from sitemap.xml, at most 500 pages and 6 links deep. Each page's main content, without navigation, becomes a document.

Library ID: /websites/<host-base-path>, e.g. https://docs.example.com/guide/ -> /websites/docs.example.com-guide.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> https://docs.example.com/guide/ --wait',
    '<%= config.bin %> <%= command.id %> https://docs.example.com/guide/intro.html --base-url https://docs.example.com/',
    '<%= config.bin %> <%= command.id %> https://app-docs.example.com/ --render --wait',
  ]
  static override enableJsonFlag = true
  static override args = { url: Args.string({ description: 'URL of the page to start crawling from.', required: true }) }
  static override flags = {
    'base-url': Flags.string({ summary: 'Only pages under this URL are crawled (default: the start URL\'s directory).' }),
    render: Flags.boolean({ summary: 'Render each page in Chromium first, for sites that build their content with JavaScript.' }),
    wait: Flags.boolean({ char: 'w', summary: 'Wait until the library is searchable, showing progress.' }),
  }

  async run(): Promise<AddSourceResult> {
    const { args, flags } = await this.parse(AddWebsite)
    const submission = websiteSubmission(args.url, flags['base-url'], flags.render)
    return this.withRuntime(flags, 'write', async (runtime) => this.follow(runtime, await submitSource(runtime.store, submission), flags.wait))
  }
}
