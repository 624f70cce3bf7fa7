/** A real `lectern serve` process on a free port, for tests about signals, crashes and the lock. */
import { createServer } from 'node:net'
import { execa } from 'execa'
import { dataPaths } from '../../src/install/paths.js'
import { readLockHolder } from '../../src/store/lock.js'
import { databaseEnvFor } from './stores.js'
import { onTestFinished } from 'vitest'
import { PROJECT_ROOT } from './cli.js'
import { pollUntil } from './poll.js'
import type { Defer } from './tmp.js'

/** A port the OS just handed out; `serve --port 0` would hide the port it picked. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface ServerOptions {
  /** Default warn: tests that read the log ask for more. */
  logLevel?: 'debug' | 'info' | 'warn'
  /** More flags of `lectern serve`. */
  args?: string[]
  /** Runs the server on its first `cpus` CPUs only (taskset), as on a smaller machine. */
  cpus?: number
  /** The port, when the test must know it before the start (a public address in the configuration); else one from freePort(). */
  port?: number
}

/**
 * execa sends SIGKILL 5 s after `kill('SIGTERM')` unless told otherwise; a graceful stop on a
 * loaded machine can take longer, and the tests assert its exit code and last log lines.
 */
export const GRACEFUL_STOP = { forceKillAfterDelay: false } as const

function spawnServer(dataDir: string, port: number, env: Record<string, string>, options: ServerOptions) {
  // taskset execs node in its own place: the child's pid is the server's.
  const [command, prefix] = options.cpus === undefined ? ['node', []] : ['taskset', ['--cpu-list', `0-${options.cpus - 1}`, 'node']]
  return execa(command, [...prefix, 'bin/run.js', 'serve', '--data-dir', dataDir, '--port', String(port), '--log-level', options.logLevel ?? 'warn', ...(options.args ?? [])], {
    cwd: PROJECT_ROOT,
    env: { ...databaseEnvFor(dataDir), ...env },
    stdin: 'ignore',
    reject: false,
    ...GRACEFUL_STOP,
  })
}

export interface ServerProcess {
  url: string
  process: ReturnType<typeof spawnServer>
}

/** Spawns the server and waits until /api/ready answers 200; it is killed at the end if still running. */
export async function startServer(dataDir: string, env: Record<string, string> = {}, defer: Defer = onTestFinished, options: ServerOptions = {}): Promise<ServerProcess> {
  const port = options.port ?? (await freePort())
  const child = spawnServer(dataDir, port, env, options)
  defer(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await child
  })
  const url = `http://127.0.0.1:${port}`
  // Start-up loads the CLI, migrates, and brings up the job process: slow on a loaded machine.
  // With several workers, each learns from the primary that the job worker runs a moment apart:
  // ready means ready on new connections (which the cluster hands to the workers in turn) a few times running.
  let readyInRow = 0
  await pollUntil(`${url}/api/ready`, async () => {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${String((await child).stderr)}`)
    // Another test's server may have taken the port between freePort() and this one's bind: only
    // the address this server wrote beside its lock says the answers are its own.
    if (!listensOn(dataDir, child.pid, url)) return undefined
    const res = await fetch(`${url}/api/ready`, { headers: { connection: 'close' } }).catch(() => undefined)
    readyInRow = res?.status === 200 ? readyInRow + 1 : 0
    return readyInRow >= 4 ? true : undefined
    // Generous: a start takes many seconds when other suites load the machine.
  }, 60_000)
  return { url, process: child }
}

/** Whether the server holding the data directory's lock is `pid`, listening at `url` (what `lectern status` reads). */
function listensOn(dataDir: string, pid: number | undefined, url: string): boolean {
  const holder = readLockHolder(dataPaths(dataDir).lock)
  return holder !== undefined && holder.pid === pid && typeof holder.server === 'string' && new URL(holder.server).port === new URL(url).port
}
