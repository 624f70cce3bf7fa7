/** Starting and stopping the servers under test, each in its own child process. */
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import net from 'node:net'
import { siblingModule } from './paths.js'
import { childPids, currentRss } from './rss.js'

export const CONTEXT_PATH = '/api/v2/context'

export interface RunningServer {
  port: number
  /** Resident memory of the server now: its process and every process it started (the cluster's workers). */
  rssBytes(): number
  stop(): Promise<void>
}

/**
 * `processes` (default 1): how many processes serve on the one port (node:cluster, as `lectern
 * serve --workers N`); give Lectern and the baseline the same number to compare like with like.
 */
export type ServerKind = ({ kind: 'lectern'; dataDir: string; cacheBytes?: number; requestLog?: boolean; env?: Record<string, string> } | { kind: 'baseline'; bodyBytes: number }) & { processes?: number }

/**
 * `cacheBytes` (Lectern only): the memory for loaded libraries over all the processes, as
 * `--cache-size` (default a quarter of RAM); each process gets its share. `requestLog` (Lectern
 * only): log as `lectern serve` does at its defaults (JSON lines at info), to /dev/null. `env`
 * (Lectern only): added to the server's environment, e.g. DATABASE_URL and LECTERN_SECRET_KEY for a
 * replica on PostgreSQL.
 */
export async function startServer(server: ServerKind): Promise<RunningServer> {
  const processes = server.processes ?? 1
  const args =
    server.kind === 'lectern'
      ? [server.dataDir, String(processes), String(Math.floor((server.cacheBytes ?? 0) / processes)), server.requestLog ? 'log' : 'quiet']
      : [String(server.bodyBytes), String(processes)]
  const env = server.kind === 'lectern' && server.env ? { ...process.env, ...server.env } : process.env
  const child = fork(siblingModule('server-child'), [server.kind, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port))
    child.once('exit', (code) => reject(new Error(`${server.kind} server exited with code ${code} before listening`)))
  })
  return { port, rssBytes: () => treeRss(child.pid!), stop: () => stopChild(child) }
}

function treeRss(pid: number): number {
  return (currentRss(pid) ?? 0) + childPids(pid).reduce((sum, child) => sum + treeRss(child), 0)
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}

export const contextPath = (libraryId: string, question: string): string =>
  `${CONTEXT_PATH}?libraryId=${encodeURIComponent(libraryId)}&query=${encodeURIComponent(question)}`

/** Body sizes (bytes) of a few real answers, fetched one at a time; also warms caches. */
export async function fetchBodySizes(port: number, paths: string[]): Promise<number[]> {
  const sizes: number[] = []
  for (const path of paths) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`)
    const body = Buffer.from(await response.arrayBuffer())
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${body.toString('utf8', 0, 300)}`)
    sizes.push(body.length)
  }
  return sizes
}

/** A port the OS just handed out, for `lectern serve --port` (`--port 0` would not say which it took). */
export async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
