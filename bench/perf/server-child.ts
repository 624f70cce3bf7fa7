/**
 * Child-process entry for the load tests: each server under test runs in its own process, so
 * neither Lectern nor the baseline shares an event loop with autocannon (or with each other).
 *
 *   node server-child.js lectern <dataDir>
 *   node server-child.js baseline <bodyBytes>
 *
 * Sends `{ port }` over IPC once listening; closes on SIGTERM.
 */
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import { buildApp } from '../../server/app.js'
import { CONTEXT_PATH } from './servers.js'

/** A bare Fastify route answering every question with the same body: the framework's ceiling. */
async function baselineApp(bodyBytes: number): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  const body = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bodyBytes / 27)).slice(0, bodyBytes)
  app.get(CONTEXT_PATH, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(body))
  return app
}

async function main(): Promise<void> {
  const [kind, arg] = process.argv.slice(2)
  const app =
    kind === 'lectern'
      ? await buildApp({ dataDir: arg, startWorker: false, rateLimit: { anonymous: 0, keyed: 0 } })
      : await baselineApp(Number(arg))
  await app.listen({ port: 0, host: '127.0.0.1' })
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0))
  })
  process.send?.({ port: (app.server.address() as AddressInfo).port })
}

await main()
