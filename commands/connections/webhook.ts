import { Args, Flags } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { secretFromEnv, secretFromStdin } from '../../cli/secret-input.js'
import { cliContext } from '../../src/audit/log.js'
import { LecternError } from '../../src/errors.js'
import { removeWebhookSecret, setWebhookSecret, type WebhookSecretChange } from '../../src/webhooks/secret.js'

export default class ConnectionsWebhook extends LecternCommand {
  static override summary = "Set or remove the secret a git connection's host signs push webhooks with."
  static override description = `A push to a repository then refreshes the libraries cloned from it (on the branch pushed to), and a push to the GitOps manifest's repository runs a sync.

On the git host, add a webhook for push events with this connection's webhook secret: https://<lectern>/api/webhooks/github for GitHub and GitHub Enterprise Server (content type application/json), https://<lectern>/api/webhooks/gitlab for GitLab (the secret is its "Secret token"), https://<lectern>/api/webhooks/gitea for Gitea and Forgejo.

--generate makes a random secret and prints it this once; it is stored encrypted and never shown again. A delivery whose signature does not match, or that was received before, is refused and recorded in the audit log.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> gitlab --generate',
    'printf %s "$GITHUB_WEBHOOK_SECRET" | <%= config.bin %> <%= command.id %> ghes --secret-stdin',
    '<%= config.bin %> <%= command.id %> gitlab --remove',
  ]
  static override enableJsonFlag = true
  static override args = { name: Args.string({ description: 'The git connection (`lectern connections list`).', required: true }) }
  static override flags = {
    generate: Flags.boolean({ summary: 'Make a random secret and print it once (preferred).', exclusive: ['secret-stdin', 'secret-env', 'remove'] }),
    'secret-stdin': Flags.boolean({ summary: 'Read the secret from standard input.', exclusive: ['generate', 'secret-env', 'remove'] }),
    'secret-env': Flags.string({ summary: 'Read the secret from this environment variable.', exclusive: ['generate', 'secret-stdin', 'remove'] }),
    remove: Flags.boolean({ summary: 'Remove the secret: deliveries for this host are refused from then on.', exclusive: ['generate', 'secret-stdin', 'secret-env'] }),
  }

  async run(): Promise<WebhookSecretChange & { removed?: boolean }> {
    const { args, flags } = await this.parse(ConnectionsWebhook)
    if (!flags.generate && !flags.remove && !flags['secret-stdin'] && flags['secret-env'] === undefined) {
      throw new LecternError('validation_error', 'Say what to do: --generate (preferred), --secret-stdin, --secret-env VAR or --remove.')
    }
    const given = flags['secret-stdin'] ? await secretFromStdin() : flags['secret-env'] === undefined ? undefined : secretFromEnv(flags['secret-env'])
    const change = await this.withRuntime(flags, 'write', async (rt) =>
      flags.remove ? await removeWebhookSecret(rt.store, cliContext(), args.name) : await setWebhookSecret(rt.store, cliContext(), args.name, given),
    )
    if ('removed' in change) {
      this.log(
        change.removed
          ? `Removed the webhook secret of "${args.name}": push deliveries from ${change.connection.baseUrl} are refused from now on.`
          : `"${args.name}" holds no webhook secret; nothing changed.`,
      )
    } else if (change.secret) {
      // The secret alone on standard output, so SECRET=$(lectern connections webhook ... --generate) captures it.
      this.logToStderr(`Webhook secret of "${args.name}", shown this once; give it to the webhook on ${change.connection.baseUrl}:`)
      this.log(change.secret)
    } else {
      this.log(`Stored the webhook secret of "${args.name}" for ${change.connection.baseUrl}.`)
    }
    return change
  }
}
