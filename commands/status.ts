import { humanTimestamp, record } from '../cli/output.js'
import { LecternCommand } from '../cli/run.js'
import type { SettingSource } from '../src/config.js'
import { installStatus, type InstallStatus, type ServerSeen } from '../src/install/status.js'
import type { Replica } from '../src/store/replicas.js'

const MODE_SOURCE: Record<SettingSource, string> = {
  flag: 'from --mode',
  env: 'from LECTERN_MODE',
  file: 'from lectern.yaml',
  'data-dir': 'recorded in the data directory',
  default: 'the default',
}

export default class Status extends LecternCommand {
  static override summary = 'Show which data directory, mode, version and server this command sees.'
  static override description = `Every command finds the data directory the same way: --data-dir, else LECTERN_DATA_DIR, else dataDir in lectern.yaml (./lectern.yaml, else /etc/lectern/lectern.yaml), else /var/lib/lectern when it exists, else ~/.local/share/lectern. status says which one it found and why, the mode and where it came from, the program's version and the database's schema, and whether a server holds that directory: its process, its address and whether it answers /api/ready. On PostgreSQL (DATABASE_URL) it also lists the servers of the install on every host, from their heartbeats.

A directory without Lectern data is refused (data_dir_empty, exit 4) with where it looked, as every command but serve and restore refuses it.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
    '<%= config.bin %> <%= command.id %> --data-dir /var/lib/lectern',
  ]
  static override enableJsonFlag = true

  async run(): Promise<InstallStatus> {
    const { flags } = await this.parse(Status)
    const status = await this.withRuntime(flags, 'read', (rt, resolved) => installStatus(resolved, rt))
    this.log(
      record([
        ['Data directory', `${status.dataDir} (${status.dataDirOrigin})`],
        ['Config file', status.configFile ?? 'none'],
        ['Database', status.database.kind === 'sqlite' ? `SQLite, ${status.database.where}` : `PostgreSQL, ${status.database.where}`],
        ['Mode', `${status.mode} (${MODE_SOURCE[status.modeSource]})`],
        ['Version', `Lectern ${status.version}, database schema ${status.schema}`],
        ['Server', serverText(status.server, this.dataDirArgument(status.dataDir), status.replicas)],
        ...(status.replicas === null ? [] : [['Replicas', replicasText(status.replicas)] as [string, string]]),
        ['Libraries', String(status.libraries)],
        ['Jobs', `${status.jobs.running} running, ${status.jobs.queued} queued`],
      ]),
    )
    return status
  }
}

function replicasText(replicas: Replica[]): string {
  if (replicas.length === 0) return 'none up (no `lectern serve` on this database beat in the last 20 s)'
  return `${replicas.length} up: ${replicas.map((r) => `process ${r.pid} on ${r.host} (Lectern ${r.appVersion}, since ${humanTimestamp(r.startedAt)})`).join('; ')}`
}

/** `dataDirFlag`: the --data-dir the command was given, kept in the command it suggests. */
function serverText(server: ServerSeen, dataDirFlag: string, replicas: Replica[] | null): string {
  if (!server.running && replicas?.length) return 'none on this data directory; the install is served by the replicas below'
  if (!server.running) return `not running (start it with \`lectern serve${dataDirFlag}\`, or \`systemctl start lectern\`)`
  const who = server.pid ? `process ${server.pid} on ${server.hostname}, since ${humanTimestamp(server.startedAt)}` : 'a Lectern process'
  if (!server.url) return `the data directory is held by ${who}, which is not listening (a command running jobs, or a restore)`
  const answer = server.ready === true ? 'ready' : server.ready === false ? 'not ready yet (starting, or applying a restore)' : 'not answering'
  return `${server.url}, ${answer} (${who})`
}
