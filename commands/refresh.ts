import { Args, Flags } from '@oclif/core'
import { LecternCommand } from '../cli/run.js'
import { LOCAL } from '../src/library/access.js'
import { LecternError } from '../src/errors.js'
import { parseAge, refreshLibrary, refreshStale } from '../src/jobs/library-jobs.js'

const DEFAULT_AGE = '7d'

interface RefreshResult {
  queued: Array<{ libraryId: string; jobId: number; state?: string }>
  skipped: Array<{ libraryId: string; reason: string }>
}

export default class Refresh extends LecternCommand {
  static override summary = 'Re-ingest a library (or every stale one) from its source.'
  static override description = `The live snippets keep serving until the new set is ready. Git libraries whose remote commit has not changed, and web sources that answer "not modified", are skipped unless --force.

--all --older-than is meant for cron, e.g. daily: lectern refresh --all --older-than 7d`
  static override examples = [
    '<%= config.bin %> <%= command.id %> /fastify/fastify --wait',
    '<%= config.bin %> <%= command.id %> /acme/widgets@v2.0.0 --force',
    '<%= config.bin %> <%= command.id %> --all --older-than 7d --json',
  ]
  static override enableJsonFlag = true
  static override args = { libraryId: Args.string({ description: 'Library ID, optionally pinned to a version.' }) }
  static override flags = {
    all: Flags.boolean({ summary: 'Refresh every library last updated longer ago than --older-than.' }),
    // No oclif default: with one, oclif would count the flag as given and its dependsOn would refuse every `refresh <id>`.
    'older-than': Flags.string({ summary: `Age for --all, e.g. 7d, 12h, 30m (default ${DEFAULT_AGE}).`, dependsOn: ['all'] }),
    force: Flags.boolean({ summary: 'Re-ingest even when the source has not changed.' }),
    wait: Flags.boolean({ char: 'w', summary: 'Wait for the refresh to end, showing progress.' }),
  }

  async run(): Promise<RefreshResult> {
    const { args, flags } = await this.parse(Refresh)
    if (flags.all === (args.libraryId !== undefined)) {
      throw new LecternError('validation_error', 'Name one library ID, or pass --all (with --older-than).')
    }
    return this.withRuntime(flags, 'read', async (runtime) => {
      const { queued, skipped } = flags.all
        ? await refreshStale(runtime.store, parseAge(flags['older-than'] ?? DEFAULT_AGE), runtime.guard)
        : { queued: [await refreshLibrary(runtime.store, { libraryId: args.libraryId!, force: flags.force }, LOCAL, runtime.guard)], skipped: [] }
      for (const s of skipped) this.logToStderr(`skipped ${s.libraryId}: ${s.reason}`)
      const result: RefreshResult = { queued: queued.map((q) => ({ libraryId: q.libraryId, jobId: q.job.pk })), skipped }
      if (queued.length === 0) this.log('Nothing to refresh.')
      for (const q of queued) {
        if (!flags.wait) {
          await this.reportQueued(runtime, q.message)
          continue
        }
        // With --all one failure does not stop the others; their states are in the result.
        const job = await this.followJob(runtime, q.job.pk, q.libraryId, !flags.all)
        result.queued.find((r) => r.jobId === q.job.pk)!.state = job.state
      }
      return result
    })
  }
}
