/**
 * A real forward proxy on 127.0.0.1 (the `proxy` package: absolute-URI requests and CONNECT
 * tunnels), recording what passes through it. `hosts` maps a name and port a client asks for
 * (`docs.example.com:443`) to a port on loopback, the way the proxy's own DNS would send it
 * there, so HTTPS stand-ins can answer for named hosts. With `credentials` it asks for Basic
 * proxy authentication, as corporate proxies do.
 */
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { createProxy } from 'proxy'
import { onTestFinished } from 'vitest'
import type { Defer } from './tmp.js'

export interface ForwardProxy {
  /** `http://127.0.0.1:<port>`, without credentials. */
  url: string
  port: number
  /** What passed through, in order: `GET http://127.0.0.1:4000/path`, `CONNECT docs.example.com:443`. */
  seen: string[]
  /** The User-Agent of each absolute-URI request (a tunnel's requests are encrypted). */
  userAgents: string[]
  /** Requests refused for missing or wrong credentials. */
  refused: number
}

export interface ForwardProxyOptions {
  hosts?: Record<string, number>
  credentials?: { username: string; password: string }
}

export async function startForwardProxy(options: ForwardProxyOptions = {}, defer: Defer = onTestFinished): Promise<ForwardProxy> {
  const hosts = options.hosts ?? {}
  const server = createProxy(http.createServer())
  const state = { seen: [] as string[], userAgents: [] as string[], refused: 0 }
  if (options.credentials) {
    const expected = `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`
    server.authenticate = (req) => {
      const ok = req.headers['proxy-authorization'] === expected
      if (!ok) state.refused++
      return ok
    }
  }
  // First in line, so the proxy's own handlers see the mapped target.
  server.prependListener('request', (req: http.IncomingMessage) => {
    state.seen.push(`${req.method} ${req.url}`)
    state.userAgents.push(String(req.headers['user-agent']))
    const url = new URL(req.url ?? '/')
    const port = hosts[`${url.hostname}:${url.port || 80}`]
    if (port !== undefined) req.url = `http://127.0.0.1:${port}${url.pathname}${url.search}`
  })
  server.prependListener('connect', (req: http.IncomingMessage) => {
    state.seen.push(`CONNECT ${req.url}`)
    const port = hosts[req.url ?? '']
    if (port !== undefined) req.url = `127.0.0.1:${port}`
  })
  // Tunnels leave the HTTP server's hands; they are ended here with the rest.
  const sockets = new Set<Socket>()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  defer(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const port = (server.address() as AddressInfo).port
  return Object.assign(state, { url: `http://127.0.0.1:${port}`, port })
}
