/** Listening on the configured address, with a port another process holds said plainly. */
import type { FastifyInstance } from 'fastify'
import type { LecternConfig } from '../src/config.js'
import { LecternError } from '../src/errors.js'

/** Listens, or closes the app and throws: `validation_error` when the port is taken. Returns the port. */
export async function listenOn(app: FastifyInstance, server: LecternConfig['server']): Promise<number> {
  try {
    await app.listen({ port: server.port, host: server.host })
  } catch (err) {
    await app.close()
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    throw new LecternError('validation_error', `port ${server.port} on ${server.host} is already in use: stop the other process or choose another --port.`, {}, { cause: err })
  }
  return (app.server.address() as { port: number }).port
}
