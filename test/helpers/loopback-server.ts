/**
 * A plain HTTP server on 127.0.0.1 for one test: listening on a port from the OS, closed (with
 * its open connections) when the test ends. Clients that hang up mid-body are the point of some
 * tests, so socket errors are not the server's failures.
 */
import { createServer, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { onTestFinished } from 'vitest'

export async function serveOnLoopback(handler: RequestListener): Promise<string> {
  const server = createServer(handler)
  server.on('connection', (socket) => socket.on('error', () => {}))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
