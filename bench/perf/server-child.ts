/**
 * Child-process entry for the load tests: each server under test runs in its own process, so
 * neither Lectern nor the baseline shares an event loop with autocannon (or with each other).
 *
 *   node server-child.js lectern <dataDir> [processes] [cacheBytes per process, 0 for the default] [log|quiet]
 *   node server-child.js baseline <bodyBytes> [processes]
 *
 * With `processes` > 1 this process is a node:cluster primary whose workers (each one server as
 * above) share one port, the way `lectern serve --workers N` serves; both kinds get the same
 * harness, so N Lectern processes are measured against N baseline processes. Lectern runs with
 * no rate limit (as with one process), so no request waits on the primary.
 *
 * Sends `{ port }` over IPC once listening (every worker, with processes > 1); closes on SIGTERM.
 */
import cluster from 'node:cluster'
import { once } from 'node:events'
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import { buildApp } from '../../server/app.js'
import { createLogDestination } from '../../server/logger.js'
import { CONTEXT_PATH } from './servers.js'

/** A bare Fastify route answering every question with the same body: the framework's ceiling. */
async function baselineApp(bodyBytes: number): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  const body = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bodyBytes / 27)).slice(0, bodyBytes)
  app.get(CONTEXT_PATH, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(body))
  return app
}

/** One server: listens (on the port the cluster shares, in a worker) and reports its port to whoever forked it. */
async function serveOne(kind: string, arg: string, cacheBytes: number, requestLog: boolean): Promise<void> {
  const logStream = requestLog ? createLogDestination('json', fs.openSync('/dev/null', 'w')).stream : undefined
  const app =
    kind === 'lectern'
      ? await buildApp({ dataDir: arg, startWorker: false, rateLimit: { anonymous: 0, keyed: 0 }, ...(cacheBytes > 0 ? { search: { cacheSize: cacheBytes } } : {}), ...(logStream ? { logStream } : {}) })
      : await baselineApp(Number(arg))
  await app.listen({ port: 0, host: '127.0.0.1' })
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0))
  })
  process.send?.({ port: (app.server.address() as AddressInfo).port })
}

/** The cluster primary: forks the workers (this file again, same arguments) and reports the port once all listen. */
async function servePrimary(processes: number): Promise<void> {
  const workers = Array.from({ length: processes }, () => cluster.fork())
  // A worker that dies before it listens ends the run: startServer() then reports the exit.
  const failed = () => process.exit(1)
  cluster.on('exit', failed)
  const ports = await Promise.all(workers.map(async (worker) => ((await once(worker, 'message')) as [{ port: number }])[0].port))
  process.once('SIGTERM', () => {
    cluster.off('exit', failed)
    const exits = workers.filter((worker) => !worker.isDead()).map((worker) => once(worker, 'exit'))
    for (const worker of workers) worker.process.kill('SIGTERM')
    void Promise.all(exits).then(() => process.exit(0))
  })
  process.send?.({ port: ports[0] })
}

const [kind, arg, processes = '1', cacheBytes = '0', log = 'quiet'] = process.argv.slice(2)
await (Number(processes) > 1 && cluster.isPrimary ? servePrimary(Number(processes)) : serveOne(kind, arg, Number(cacheBytes), log === 'log'))
