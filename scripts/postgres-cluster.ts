/**
 * A PostgreSQL cluster of its own (Debian's `postgresql` package, which scripts/system-packages.sh
 * installs) in a directory the caller gives, on a free loopback port: for the test suites and for
 * `npm run bench`. PostgreSQL refuses to run as root, so under root the cluster belongs to the
 * `postgres` user the package creates.
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { execa } from 'execa'

export interface PostgresCluster {
  /** postgres://lectern@127.0.0.1:<port>/postgres: the superuser `lectern`, trusted on loopback. */
  url: string
  /** Stops the server (a fast shutdown: open sessions are ended), as an outage does. */
  stop(): Promise<void>
  /** Starts it again on the same port and data, after `stop`. */
  start(): Promise<void>
}

export interface ClusterOptions {
  /**
   * Writes as a production server does (fsync, synchronous commit, full pages): for measuring. A
   * test cluster need not survive a power cut and runs without.
   */
  durable?: boolean
}

/** Where Debian puts the server's programs: /usr/lib/postgresql/<major>/bin, the newest major; undefined when not installed. */
export function postgresPrograms(): string | undefined {
  const root = '/usr/lib/postgresql'
  const majors = fs.existsSync(root) ? fs.readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : []
  const bin = path.join(root, majors[0] ?? '15', 'bin')
  return fs.existsSync(path.join(bin, 'initdb')) ? bin : undefined
}

/** The uid and gid of a user named in /etc/passwd. */
function userIds(name: string): { uid: number; gid: number } {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith(`${name}:`))
  if (!line) throw new Error(`there is no user ${name}: install the Debian package postgresql (scripts/system-packages.sh).`)
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Creates a cluster in `dir` (empty, made by the caller) and starts it; the caller stops it. */
export async function startPostgresCluster(bin: string, dir: string, options: ClusterOptions = {}): Promise<PostgresCluster> {
  const owner = process.getuid?.() === 0 ? userIds('postgres') : undefined
  if (owner) fs.chownSync(dir, owner.uid, owner.gid)
  const data = path.join(dir, 'data')
  await execa(path.join(bin, 'initdb'), ['-D', data, '-U', 'lectern', '--auth=trust', '-E', 'UTF8', '--locale=C', ...(options.durable ? [] : ['-N'])], { ...owner, stdin: 'ignore' })
  const port = await freePort()
  const settings = options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
  let server: ReturnType<typeof launch> | undefined
  function launch() {
    return execa(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', ...settings], { ...owner, stdin: 'ignore', reject: false, all: true })
  }
  const start = async () => {
    const running = (server = launch())
    await new Promise<void>((resolve, reject) => {
      let said = ''
      running.all!.on('data', (chunk: Buffer) => {
        said += chunk.toString()
        if (said.includes('database system is ready to accept connections')) resolve()
      })
      void running.then((ended) => reject(new Error(`postgres exited (${ended.exitCode ?? ended.signal}) before accepting connections: ${said}`)))
    })
  }
  const stop = async () => {
    const running = server
    server = undefined
    // SIGINT: the fast shutdown, which ends open sessions rather than waiting for them.
    running?.kill('SIGINT')
    await running
  }
  await start()
  return { url: `postgres://lectern@127.0.0.1:${port}/postgres`, stop, start }
}
