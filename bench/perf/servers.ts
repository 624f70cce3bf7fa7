/** Starting and stopping the servers under test, each in its own child process. */
import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { siblingModule } from './paths.js'

export const CONTEXT_PATH = '/api/v2/context'

export interface RunningServer {
  port: number
  stop(): Promise<void>
}

/**
 * `processes` (default 1): how many processes serve on the one port (node:cluster, as `lectern
 * serve --workers N`); give Lectern and the baseline the same number to compare like with like.
 */
export type ServerKind = ({ kind: 'lectern'; dataDir: string } | { kind: 'baseline'; bodyBytes: number }) & { processes?: number }

export async function startServer(server: ServerKind): Promise<RunningServer> {
  const arg = server.kind === 'lectern' ? server.dataDir : String(server.bodyBytes)
  const child = fork(siblingModule('server-child'), [server.kind, arg, String(server.processes ?? 1)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port))
    child.once('exit', (code) => reject(new Error(`${server.kind} server exited with code ${code} before listening`)))
  })
  return { port, stop: () => stopChild(child) }
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
