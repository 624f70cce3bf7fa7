import { Flags } from '@oclif/core'
import { dataDirFlag, modeFlag } from '../cli/flags.js'
import { LecternCommand } from '../cli/run.js'
import { LOG_LEVELS } from '../src/config.js'
import { serve } from '../server/serve.js'

export default class Serve extends LecternCommand {
  static override summary = 'Run the Lectern server (REST API, job worker).'
  static override description = `Opens (and on first start creates) the data directory, runs its migrations, takes its lock and listens.
SIGTERM or SIGINT stops it gracefully: in-flight requests finish, the running job is put back in the queue, the database is closed.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --port 8080 --host 0.0.0.0 --data-dir /var/lib/lectern',
    'LECTERN_RATE_LIMIT_ANONYMOUS=0 <%= config.bin %> <%= command.id %> --log-level debug',
  ]
  static override flags = {
    'data-dir': dataDirFlag,
    mode: modeFlag,
    port: Flags.integer({ summary: 'Port to listen on (0 picks a free one).', env: 'PORT', default: 3000 }),
    host: Flags.string({ summary: 'Address to listen on.', env: 'LECTERN_HOST', default: '127.0.0.1' }),
    'log-level': Flags.string({ summary: 'Log level of the JSON logs on stdout.', env: 'LECTERN_LOG_LEVEL', options: [...LOG_LEVELS], default: 'info' }),
    'rate-limit-anonymous': Flags.integer({ summary: 'Requests per window without a key (0: unlimited).', env: 'LECTERN_RATE_LIMIT_ANONYMOUS' }),
    supervise: Flags.boolean({
      summary: 'After a dashboard restore is staged, restart in this process and apply it (default); --no-supervise exits with code 75 instead, for systemd and containers.',
      allowNo: true,
      default: true,
    }),
    'rate-limit-keyed': Flags.integer({ summary: 'Requests per window per API key (0: unlimited).', env: 'LECTERN_RATE_LIMIT_KEYED' }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve)
    await serve({
      dataDir: flags['data-dir'],
      mode: flags.mode as 'onprem' | 'cloud',
      port: flags.port,
      host: flags.host,
      logLevel: flags['log-level'] as (typeof LOG_LEVELS)[number],
      rateLimits: { anonymous: flags['rate-limit-anonymous'], keyed: flags['rate-limit-keyed'] },
    }, { supervise: flags.supervise })
  }
}
