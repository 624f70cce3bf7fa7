import { Args, Flags } from '@oclif/core'
import { renderExtraction } from '../cli/extraction-view.js'
import { LecternCommand } from '../cli/run.js'
import { LOCAL } from '../src/library/access.js'
import { extractionOf, type ExtractionView } from '../src/extraction/view.js'

export default class Inspect extends LecternCommand {
  static override summary = "Show a library's extraction report: what its last ingest made of its documents, and what went wrong."
  static override description =
    'Every ingest checks what it extracted against the documents themselves and keeps the result with the library version: pages read, pages that could not be parsed or gave no snippet, include directives and the ones that read no file (with the paths tried), titles that kept markup, links to anchors their page does not define, code blocks without a language, duplicates dropped. The worst come first. A job that skipped content ends "succeeded with warnings" and names this command. Pin a version with /owner/name@tag or --version.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> /fastify/fastify',
    '<%= config.bin %> <%= command.id %> /acme/widgets --version v2.0.0 --json',
  ]
  static override enableJsonFlag = true
  static override args = { libraryId: Args.string({ description: 'Library ID, e.g. /fastify/fastify (or /owner/name@tag for a version).', required: true }) }
  static override flags = {
    version: Flags.string({ summary: 'The version (tag) whose report to show; the default branch without it.' }),
  }

  async run(): Promise<ExtractionView> {
    const { args, flags } = await this.parse(Inspect)
    const view = await this.withRuntime(flags, 'read', async (runtime) => await extractionOf(runtime.store, args.libraryId, LOCAL, flags.version ?? ''))
    this.log(renderExtraction(view))
    return view
  }
}
