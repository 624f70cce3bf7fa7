import { humanTimestamp } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { gitOpsStatus, type GitOpsStatus } from '../../src/gitops/reconcile.js'
import { requireOnPremise } from '../../src/tenancy/library-access.js'
import { describeConfig } from './config.js'
import { summary } from './sync.js'

export default class GitOpsStatusCommand extends LecternCommand {
  static override summary = 'Show the GitOps configuration, the libraries it manages and what the last sync did.'
  static override description = 'The same as GET /api/gitops/status. On-premise only.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true

  async run(): Promise<GitOpsStatus> {
    const { flags } = await this.parse(GitOpsStatusCommand)
    const status = await this.withRuntime(flags, 'read', async (rt) => {
      requireOnPremise(rt.config.mode)
      return await gitOpsStatus(rt.store)
    })
    this.log(describeConfig(status.config))
    this.log(`Libraries GitOps manages: ${status.managed.length === 0 ? 'none' : status.managed.map((m) => m.libraryId).join(', ')}.`)
    if (status.lastSync) this.log(`Last sync ${humanTimestamp(status.lastSync.at)}, commit ${status.lastSync.commit.slice(0, 12)}: ${summary(status.lastSync)}.`)
    else this.log('No sync has run yet (lectern gitops sync).')
    if (status.lastError) this.log(`The last attempt failed ${humanTimestamp(status.lastError.at)}, changing nothing: ${status.lastError.message}`)
    return status
  }
}
