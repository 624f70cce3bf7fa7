import { Flags } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { cliContext } from '../../src/audit/log.js'
import { readGitOpsConfig, updateGitOpsConfig, type GitOpsConfig } from '../../src/gitops/config.js'
import { requireOnPremise } from '../../src/tenancy/library-access.js'

export default class GitOpsConfigCommand extends LecternCommand {
  static override summary = 'Show or set where the GitOps manifest is: its repository, path and branch, and whether a sync prunes.'
  static override description = `GitOps keeps the list of indexed sources in a manifest (repos.yaml, Context7's format) in a git repository; \`lectern gitops sync\` makes the install match it. The repository is cloned with the install's git connection for its host (\`lectern connections add git\`), so a private one needs no more. With --prune, a sync removes the libraries GitOps added that the manifest no longer lists; libraries added by hand are never touched. With --enabled, the server syncs by itself when it starts and on --schedule (a fresh install pointed at the manifest rebuilds its index); without, syncs run on demand (\`lectern gitops sync\`, POST /api/gitops/reconcile, the dashboard). Without flags, shows the configuration. On-premise only.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --repo https://github.com/acme/lectern-sources --path repos.yaml --branch main',
    '<%= config.bin %> <%= command.id %> --prune --json',
    "<%= config.bin %> <%= command.id %> --enabled --schedule '*/15 * * * *'",
  ]
  static override enableJsonFlag = true
  static override flags = {
    repo: Flags.string({ summary: 'The manifest repository, as `lectern add` takes one: an owner and a name in its path, over https://, ssh:// (with an SSH connection for its host), or http:// on a trusted network.' }),
    path: Flags.string({ summary: "The manifest's path in the repository (default repos.yaml)." }),
    branch: Flags.string({ summary: "The branch to read it from ('' for the repository's default branch)." }),
    prune: Flags.boolean({ summary: 'Remove the libraries GitOps added that the manifest no longer lists (--no-prune: keep them).', allowNo: true }),
    enabled: Flags.boolean({ summary: 'Sync by itself: when the server starts, and on --schedule (--no-enabled: on demand only).', allowNo: true }),
    schedule: Flags.string({ summary: "When automatic syncs run, in UTC: daily, every-6-hours, weekly or a 5-field cron expression ('' for none)." }),
  }

  async run(): Promise<GitOpsConfig> {
    const { flags } = await this.parse(GitOpsConfigCommand)
    const change = {
      ...(flags.repo === undefined ? {} : { repoUrl: flags.repo }),
      ...(flags.path === undefined ? {} : { path: flags.path }),
      ...(flags.branch === undefined ? {} : { branch: flags.branch }),
      ...(flags.prune === undefined ? {} : { prune: flags.prune }),
      ...(flags.enabled === undefined ? {} : { enabled: flags.enabled }),
      ...(flags.schedule === undefined ? {} : { schedule: flags.schedule }),
    }
    const config = await this.withRuntime(flags, Object.keys(change).length > 0 ? 'write' : 'read', async (rt) => {
      requireOnPremise(rt.config.mode)
      return Object.keys(change).length > 0 ? await updateGitOpsConfig(rt.store, cliContext(), change) : await readGitOpsConfig(rt.store)
    })
    this.log(describeConfig(config))
    return config
  }
}

export function describeConfig(config: GitOpsConfig): string {
  if (config.repoUrl === '') return 'GitOps is not set up: no manifest repository (lectern gitops config --repo <url>).'
  const automatic = config.enabled ? `automatic syncs at start${config.schedule ? ` and on ${config.schedule} (UTC)` : ''}` : 'syncs on demand only'
  return `Manifest: ${config.path} in ${config.repoUrl} (${config.branch || 'default branch'}); ${automatic}; pruning ${config.prune ? 'on: a sync removes the libraries it added that the manifest no longer lists' : 'off'}.`
}
