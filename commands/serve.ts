import { Flags } from '@oclif/core'
import { modeFlag, settingHint } from '../cli/flags.js'
import { LecternCommand } from '../cli/run.js'
import { LOG_FORMATS, LOG_LEVELS, type ConfigOverrides, type LogFormat, type LogLevel, type Mode } from '../src/config.js'
import { serve } from '../server/serve.js'

export default class Serve extends LecternCommand {
  static override summary = 'Run the Lectern server: REST API, MCP endpoint and job worker.'
  static override description =
    'Opens (and on first start creates) the data directory, runs its migrations, takes its lock and listens. The first start records its mode in the data directory (install.mode): commands told no mode run in it, and a start in another mode is refused until switched with `lectern config set install.mode`. Every setting comes from its flag, else its environment variable, else lectern.yaml, else its default (`lectern config get` shows which). With --workers N (default: one per CPU) it serves from N processes on the one port: worker 1 also runs the jobs, the backup schedule and start-up housekeeping, rate limits are counted once for all of them, and a process that dies is started again; --workers 1 serves from this process alone. SIGTERM or SIGINT stops it gracefully: in-flight requests finish, the running job is put back in the queue, the database is closed. With DATABASE_URL and LECTERN_SECRET_KEY the store is that PostgreSQL and the data directory holds only this replica\'s caches: every replica given both serves the same install, they share the job queue (a dead replica\'s job runs again elsewhere after jobs.leaseSeconds) and the rate limits (docs/scaling.md).'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --port 8080 --host 0.0.0.0 --data-dir /var/lib/lectern',
    '<%= config.bin %> <%= command.id %> --workers 2',
    '<%= config.bin %> <%= command.id %> --config /etc/lectern/lectern.yaml --log-format json',
    'LECTERN_RATE_LIMIT_ANONYMOUS=0 <%= config.bin %> <%= command.id %> --log-level debug',
  ]
  static override flags = {
    mode: modeFlag,
    port: Flags.integer({ summary: settingHint('server.port') }),
    host: Flags.string({ summary: settingHint('server.host') }),
    'trust-proxy': Flags.string({ summary: settingHint('server.trustProxy') }),
    'log-level': Flags.string({ summary: settingHint('log.level'), options: [...LOG_LEVELS] }),
    'log-format': Flags.string({ summary: settingHint('log.format'), options: [...LOG_FORMATS] }),
    'rate-limit-anonymous': Flags.integer({ summary: settingHint('rateLimit.anonymous') }),
    'rate-limit-keyed': Flags.integer({ summary: settingHint('rateLimit.keyed') }),
    'rate-limit-window': Flags.integer({ summary: settingHint('rateLimit.windowSeconds') }),
    supervise: Flags.boolean({ summary: settingHint('server.supervise'), allowNo: true }),
    'cache-size': Flags.string({ summary: settingHint('search.cacheSize') }),
    workers: Flags.string({ summary: settingHint('server.workers') }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve)
    const overrides: ConfigOverrides = {
      mode: flags.mode as Mode | undefined,
      server: {
        port: flags.port,
        host: flags.host,
        supervise: flags.supervise,
        // "auto" or a number, checked by the setting's schema (src/config.ts) like its environment variable.
        ...(flags.workers !== undefined ? { workers: flags.workers as never } : {}),
        ...(flags['trust-proxy'] !== undefined ? { trustProxy: flags['trust-proxy'] as never } : {}),
      },
      log: { level: flags['log-level'] as LogLevel | undefined, format: flags['log-format'] as LogFormat | undefined },
      rateLimit: { anonymous: flags['rate-limit-anonymous'], keyed: flags['rate-limit-keyed'], windowSeconds: flags['rate-limit-window'] },
      ...(flags['cache-size'] !== undefined ? { search: { cacheSize: flags['cache-size'] as never } } : {}),
    }
    await serve(this.resolveConfig(flags, overrides))
  }
}
