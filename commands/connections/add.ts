import { readFile } from 'node:fs/promises'
import { Args, Flags } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { secretFromEnv, secretFromStdin } from '../../cli/secret-input.js'
import { cliContext } from '../../src/audit/log.js'
import { LecternError } from '../../src/errors.js'
import { addConnection } from '../../src/sources/connections.js'
import { INSTALL_CONNECTIONS, NOTION_API_URL, type Connection, type ConnectionKind } from '../../src/store/connections.js'

async function readFileFlag(file: string, flag: string): Promise<string> {
  try {
    return await readFile(file, 'utf8')
  } catch (err) {
    throw new LecternError('validation_error', `${flag}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}).`)
  }
}

/** Flags of one kind of connection given to another say so, before anything is read. */
function refuseMixedFlags(kind: ConnectionKind, flags: { host?: string; 'ssh-key-file'?: string; 'known-hosts-file'?: string; 'token-stdin': boolean; 'token-env'?: string; token?: string }): void {
  const sshFlags = flags['ssh-key-file'] !== undefined || flags['known-hosts-file'] !== undefined
  if (kind !== 'git' && sshFlags) throw new LecternError('validation_error', '--ssh-key-file and --known-hosts-file are for git connections over SSH only.')
  if (kind !== 'git') return
  const sshHost = /^ssh:\/\//i.test(flags.host?.trim() ?? '')
  const tokenGiven = flags['token-stdin'] || flags['token-env'] !== undefined || flags.token !== undefined
  if (sshHost && tokenGiven) throw new LecternError('validation_error', 'An SSH git connection takes its deploy key with --ssh-key-file, not a token.')
  if (sshHost && flags['ssh-key-file'] === undefined) throw new LecternError('validation_error', 'An SSH git connection needs its deploy key: --ssh-key-file <file> (an unencrypted private key), with --known-hosts-file.')
  if (!sshHost && sshFlags) throw new LecternError('validation_error', '--ssh-key-file and --known-hosts-file make an SSH git connection: give the host as --host ssh://host[:port].')
}

export default class ConnectionsAdd extends LecternCommand {
  static override summary = 'Store a connection (Confluence site, Notion workspace or private git host) and its token.'
  static override description = `The token is stored encrypted (AES-256-GCM with the data directory's secret key) and opened only when a job fetches. Pass it with --token-stdin or --token-env: a --token flag is visible to other users in \`ps\` and lands in shell history, so it is accepted but not recommended.

Confluence Cloud (atlassian.net) needs --email with an API token; Data Center takes a personal access token without --email. A git connection is used for repositories on its host added without their own token.

Git over SSH (on-premise): --host ssh://host[:port] with the deploy key (--ssh-key-file, an unencrypted private key) and the host keys to trust (--known-hosts-file, lines as \`ssh-keyscan\` prints them; check their fingerprints against the host's). Repositories at ssh://host/... or git@host:... are then read with that key only, and a host whose key is not among them (unknown, or changed) is refused. The key's public half is printed, to install on the host as a read-only deploy key.`
  static override examples = [
    'printf %s "$ATLASSIAN_TOKEN" | <%= config.bin %> <%= command.id %> confluence --name acme --site https://acme.atlassian.net --email me@acme.com --token-stdin',
    '<%= config.bin %> <%= command.id %> notion --name ws --token-env NOTION_TOKEN',
    '<%= config.bin %> <%= command.id %> git --name gitlab --host gitlab.example.com --token-env GITLAB_TOKEN',
    '<%= config.bin %> <%= command.id %> git --name gitea-ssh --host ssh://git.acme.internal:2222 --ssh-key-file deploy_key --known-hosts-file known_hosts',
  ]
  static override enableJsonFlag = true
  static override args = { kind: Args.string({ description: 'confluence, notion or git.', required: true, options: ['confluence', 'notion', 'git'] }) }
  static override flags = {
    name: Flags.string({ summary: 'Name that sources use to refer to this connection.', required: true }),
    site: Flags.string({ summary: 'Confluence site URL, e.g. https://acme.atlassian.net or https://wiki.acme.com.' }),
    email: Flags.string({ summary: 'Account email, for Confluence Cloud API tokens.' }),
    host: Flags.string({ summary: 'Git host, e.g. gitlab.example.com (with :port if not the default), or ssh://host[:port] for SSH.' }),
    'ssh-key-file': Flags.string({ summary: 'SSH git: the deploy key, an unencrypted private key file (in place of a token).', exclusive: ['token-stdin', 'token-env', 'token'] }),
    'known-hosts-file': Flags.string({ summary: 'SSH git: the host keys to trust, in known_hosts form (as ssh-keyscan prints).' }),
    'api-url': Flags.string({ summary: `Notion API base URL (default ${NOTION_API_URL}), e.g. for a proxy.` }),
    'token-stdin': Flags.boolean({ summary: 'Read the token from standard input (preferred).', exclusive: ['token-env', 'token'] }),
    'token-env': Flags.string({ summary: 'Read the token from this environment variable (preferred).', exclusive: ['token-stdin', 'token'] }),
    token: Flags.string({ summary: 'The token itself; visible in `ps` and shell history, prefer --token-stdin or --token-env.', exclusive: ['token-stdin', 'token-env'] }),
  }

  async run(): Promise<Connection> {
    const { args, flags } = await this.parse(ConnectionsAdd)
    const kind = args.kind as ConnectionKind
    refuseMixedFlags(kind, flags)
    const token = flags['ssh-key-file'] === undefined ? await this.readToken(flags) : await readFileFlag(flags['ssh-key-file'], '--ssh-key-file')
    const knownHosts = flags['known-hosts-file'] === undefined ? undefined : await readFileFlag(flags['known-hosts-file'], '--known-hosts-file')
    if (flags['ssh-key-file'] !== undefined && knownHosts === undefined) throw new LecternError('validation_error', 'An SSH git connection needs the host keys to trust: --known-hosts-file (`ssh-keyscan -p <port> <host>` prints them; check their fingerprints against the host\'s).')
    const created = await this.withRuntime(flags, 'write', async (rt) =>
      await addConnection(rt.store, cliContext(), INSTALL_CONNECTIONS, { kind, name: flags.name, token, site: flags.site, email: flags.email, host: flags.host, apiUrl: flags['api-url'], knownHosts }, rt.guard),
    )
    this.log(`Stored ${kind} connection "${created.name}" for ${created.baseUrl}.`)
    if (created.publicKey) this.log(`Install its deploy key on the host (read-only):\n${created.publicKey}`)
    return created
  }

  private async readToken(flags: { 'token-stdin': boolean; 'token-env'?: string; token?: string }): Promise<string> {
    if (flags['token-stdin']) return await secretFromStdin()
    if (flags['token-env']) return secretFromEnv(flags['token-env'])
    if (flags.token) return flags.token
    throw new LecternError('validation_error', 'Give the token with --token-stdin or --token-env VAR.')
  }
}
