import { Flags } from '@oclif/core'
import { table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { cliContext } from '../../src/audit/log.js'
import { syncGitOps, type SyncResult } from '../../src/gitops/reconcile.js'
import { requireOnPremise } from '../../src/tenancy/library-access.js'

/** What a sync did, in a line. */
export const summary = (result: SyncResult): string =>
  result.upToDate
    ? 'nothing to do, the manifest is unchanged since the last complete sync'
    : `${result.dryRun ? 'would create' : 'created'} ${result.created}, ${result.dryRun ? 're-index' : 're-indexed'} ${result.updated}, unchanged ${result.unchanged}, skipped ${result.skipped}, ${result.dryRun ? 'prune' : 'pruned'} ${result.pruned}, failed ${result.failed}`

export default class GitOpsSync extends LecternCommand {
  static override summary = 'Make the install match the GitOps manifest now: add, re-index and (with pruning on) remove libraries.'
  static override description = `Reads the manifest at the head of its repository (\`lectern gitops config\`) and, for each entry: creates its library when there is none; re-indexes it when GitOps added it and the entry changed, or its last ingest failed; leaves it when it matches; skips it when a library of that ID was added by hand (GitOps never takes one over). With pruning on, the libraries GitOps added that the manifest no longer lists are removed.

A manifest that is not valid (an unknown type or field, a missing one, two entries for one library) changes nothing, and the command says every problem with its place (repos[2].maxPages). A sync with the same manifest commit and configuration as the last complete one does nothing; --force runs it anyway. --dry-run prints the plan and changes nothing. The jobs it queues run in the server (\`lectern jobs\` follows them). On-premise only.`
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --dry-run', '<%= config.bin %> <%= command.id %> --force --json']
  static override enableJsonFlag = true
  static override flags = {
    'dry-run': Flags.boolean({ summary: 'Print what the sync would do, and change nothing.' }),
    force: Flags.boolean({ summary: 'Sync although the manifest is unchanged since the last complete sync.' }),
  }

  async run(): Promise<SyncResult> {
    const { flags } = await this.parse(GitOpsSync)
    const result = await this.withRuntime(flags, flags['dry-run'] ? 'read' : 'write', async (rt) => {
      requireOnPremise(rt.config.mode)
      return await syncGitOps(rt.store, cliContext(), { trigger: 'cli', dryRun: flags['dry-run'], force: flags.force })
    })
    if (result.entries.length > 0) {
      this.log(
        table(result.entries, [
          { header: result.dryRun ? 'PLAN' : 'ACTION', value: (e) => e.action },
          { header: 'LIBRARY', value: (e) => e.libraryId },
          { header: 'TYPE', value: (e) => e.type ?? '-' },
          { header: 'NOTE', value: (e) => e.reason ?? (e.jobId === undefined ? '' : `job ${e.jobId}`) },
        ]),
      )
    }
    this.log(`${result.dryRun ? 'Dry run, nothing changed' : 'Synced'} (manifest commit ${result.commit.slice(0, 12)}): ${summary(result)}.`)
    if (result.failed > 0) process.exitCode = 1
    return result
  }
}
