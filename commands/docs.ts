import { Args, Flags } from '@oclif/core'
import { LecternCommand } from '../cli/run.js'
import { LOCAL } from '../src/library/access.js'
import { DEFAULT_TOKENS, MAX_TOKENS, MIN_TOKENS } from '../src/search/budget.js'
import { renderJson, renderText, type ContextResponse } from '../src/index/render.js'

export default class Docs extends LecternCommand {
  static override summary = 'Print the best snippets of a library for a question (like GET /api/v2/context).'
  static override examples = [
    '<%= config.bin %> <%= command.id %> /fastify/fastify "register a route with a schema"',
    '<%= config.bin %> <%= command.id %> /acme/widgets@v2.0.0 "install" --tokens 2000 --json',
  ]
  static override enableJsonFlag = true
  static override args = {
    libraryId: Args.string({ description: 'Library ID, optionally pinned: /owner/repo@version.', required: true }),
    query: Args.string({ description: 'Your question in plain words.', required: true }),
  }
  static override flags = {
    tokens: Flags.integer({ summary: 'Token budget of the answer.', default: DEFAULT_TOKENS, min: MIN_TOKENS, max: MAX_TOKENS }),
  }

  async run(): Promise<ContextResponse> {
    const { args, flags } = await this.parse(Docs)
    const answer = await this.withRuntime(flags, 'read', (rt) =>
      // The CLI runs on the data directory itself: its user sees every library.
      rt.retriever.getContext({ libraryId: args.libraryId, query: args.query, tokens: flags.tokens, caller: LOCAL }),
    )
    this.log(renderText(answer.snippets, answer.library.rules))
    return renderJson(answer.snippets, answer.library.rules, answer.scores)
  }
}
