import { Args, Flags } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { LOCAL } from '../../src/library/access.js'
import { addVersion } from '../../src/jobs/library-jobs.js'

export default class VersionsAdd extends LecternCommand {
  static override summary = 'Ingest a git tag of a library as its own version.'
  static override description = 'The version is served at /owner/repo/<tag> and /owner/repo@<tag>; the unpinned ID keeps serving the default branch.'
  static override examples = ['<%= config.bin %> <%= command.id %> /fastify/fastify v4.28.1 --wait']
  static override enableJsonFlag = true
  static override args = {
    libraryId: Args.string({ description: 'Library ID.', required: true }),
    tag: Args.string({ description: 'Git tag.', required: true }),
  }
  static override flags = {
    title: Flags.string({ summary: 'Display title of the version.' }),
    wait: Flags.boolean({ char: 'w', summary: 'Wait until the version is searchable.' }),
  }

  async run(): Promise<{ libraryId: string; jobId: number; state?: string }> {
    const { args, flags } = await this.parse(VersionsAdd)
    return this.withRuntime(flags, 'read', async (runtime) => {
      const queued = await addVersion(runtime.store, args.libraryId, args.tag, flags.title, LOCAL, runtime.guard, runtime.config.mode)
      if (!flags.wait) {
        await this.reportQueued(runtime, queued.message)
        return { libraryId: queued.libraryId, jobId: queued.job.pk }
      }
      const job = await this.followJob(runtime, queued.job.pk, queued.libraryId)
      return { libraryId: queued.libraryId, jobId: job.pk, state: job.state }
    })
  }
}
