import { Args, Flags } from '@oclif/core'
import { AddSourceCommand, type AddSourceResult } from '../cli/add-source.js'
import { submitRepository } from '../src/jobs/submit.js'
import type { GitSourceKind } from '../src/sources/repo-url.js'

export default class Add extends AddSourceCommand {
  static override summary = 'Add a library from a git repository (GitHub, GitLab, Bitbucket or any git host).'
  static override description = `Queues a job that clones the repository, finds its docs and indexes them. With --wait the command shows the job's progress until the library is searchable; without a running server it runs the job itself.

A token for a private repository is read from --token or LECTERN_GIT_TOKEN and stored encrypted until the job ends; a git connection for the host (\`lectern connections add git\`) saves giving it each time.

On-premise, a repository at ssh://user@host[:port]/path or user@host:path is read over SSH with the deploy key of the SSH git connection for its host (\`lectern connections add git --host ssh://...\`); there is no token then. Its library ID is /<first path segment>/<repository>.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> https://github.com/fastify/fastify --wait',
    'LECTERN_GIT_TOKEN=glpat-... <%= config.bin %> <%= command.id %> https://gitlab.example.com/team/sdk --kind git --private',
  ]
  static override enableJsonFlag = true
  static override args = { url: Args.string({ description: 'Repository URL, e.g. https://github.com/owner/repo, or over SSH ssh://git@git.acme.internal:2222/acme/payments.git.', required: true }) }
  static override flags = {
    kind: Flags.string({ summary: 'Source kind: the git hosting product; inferred from the URL when omitted.', options: ['github', 'gitlab', 'bitbucket', 'git'] }),
    token: Flags.string({ summary: 'Access token for a private repository.', env: 'LECTERN_GIT_TOKEN' }),
    private: Flags.boolean({ summary: 'Mark the library private: only API-key holders see it.' }),
    'skip-version-filtering': Flags.boolean({ summary: 'Keep version-specific doc trees such as versioned_docs/ or docs/v1/.' }),
    'generate-docs': Flags.boolean({ summary: 'Also make snippets from the source code: exported functions, classes and types with their doc comments.' }),
    wait: Flags.boolean({ char: 'w', summary: 'Wait until the library is searchable, showing progress.' }),
  }

  async run(): Promise<AddSourceResult> {
    const { args, flags } = await this.parse(Add)
    return this.withRuntime(flags, 'write', async (runtime) => {
      const submitted = await submitRepository(runtime.store, {
        sourceKind: flags.kind as GitSourceKind | undefined,
        docsRepoUrl: args.url,
        gitToken: flags.token,
        private: flags.private,
        skipVersionFiltering: flags['skip-version-filtering'],
        generateDocs: flags['generate-docs'],
      }, runtime.guard)
      return this.follow(runtime, submitted, flags.wait)
    })
  }
}
