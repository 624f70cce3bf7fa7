/**
 * A real PostgreSQL (Debian's, installed by npm test: scripts/system-packages.sh) on 127.0.0.1: a
 * cluster of its own in a temporary directory, stopped when the suite ends. PostgreSQL refuses to
 * run as root, so under root (CI) the cluster belongs to the `postgres` user the package creates.
 */
import fs from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'
import { freePort } from './server.js'
import { requireSystemCommand } from './system.js'
import { tmpDir, type Defer } from './tmp.js'

/** Where Debian puts the server's programs: /usr/lib/postgresql/<major>/bin, the newest major. */
function serverPrograms(): string {
  const root = '/usr/lib/postgresql'
  const majors = fs.existsSync(root) ? fs.readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : []
  const bin = path.join(root, majors[0] ?? '15', 'bin')
  requireSystemCommand(path.join(bin, 'initdb'), 'postgresql')
  return bin
}

/** The uid and gid of a user named in /etc/passwd. */
function userIds(name: string): { uid: number; gid: number } {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith(`${name}:`))
  if (!line) throw new Error(`there is no user ${name}: install the Debian package postgresql (npm test installs it: scripts/system-packages.sh).`)
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

export interface Postgres {
  /** postgres://lectern@127.0.0.1:<port>/postgres: the superuser `lectern`, trusted on loopback. */
  url: string
  /** Stops the server (a fast shutdown: open sessions are ended), as an outage does. */
  stop(): Promise<void>
  /** Starts it again on the same port and data, after `stop`. */
  start(): Promise<void>
}

export async function startPostgres(defer: Defer): Promise<Postgres> {
  const bin = serverPrograms()
  const dir = await tmpDir('lectern-postgres-', defer)
  const owner = process.getuid?.() === 0 ? userIds('postgres') : undefined
  if (owner) fs.chownSync(dir, owner.uid, owner.gid)
  const data = path.join(dir, 'data')
  // -N: no fsync; a test cluster need not survive a power cut.
  await execa(path.join(bin, 'initdb'), ['-D', data, '-U', 'lectern', '--auth=trust', '-E', 'UTF8', '--locale=C', '-N'], { ...owner, stdin: 'ignore' })
  const port = await freePort()
  let server: ReturnType<typeof launch> | undefined
  function launch() {
    return execa(
      path.join(bin, 'postgres'),
      ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
      { ...owner, stdin: 'ignore', reject: false, all: true },
    )
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
  defer(stop)
  await start()
  return { url: `postgres://lectern@127.0.0.1:${port}/postgres`, stop, start }
}
