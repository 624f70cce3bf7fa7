/**
 * A real git server on 127.0.0.1 (port from the OS): smart HTTP through `git http-backend`,
 * serving the repositories under one directory. Every request is recorded with its Host header,
 * so a test can tell which name git connected with, and whether it connected at all.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { execa } from 'execa'
import { onTestFinished } from 'vitest'
import type { Defer } from './tmp.js'

export interface GitServerRequest {
  method: string
  host: string
  path: string
}

export interface GitServer {
  /** `http://127.0.0.1:<port>` (`https://` with `tls`) */
  url: string
  port: number
  requests: GitServerRequest[]
}

/**
 * Decides what a request gets: the repository path to serve (git's PATH_INFO), or undefined
 * when the route answered the request itself (or means never to answer it).
 */
export type GitRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => string | undefined

export interface GitServerOptions {
  route?: GitRoute
  defer?: Defer
  /** Serve over https with this key and certificate (test/helpers/tls.ts); git must trust its CA (GIT_SSL_CAINFO). */
  tls?: { key: string; cert: string }
}

export async function startGitServer(projectRoot: string, options: GitServerOptions = {}): Promise<GitServer> {
  const route = options.route ?? ((_req, _res, url) => url.pathname)
  const requests: GitServerRequest[] = []
  const handler: RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    requests.push({ method: req.method ?? 'GET', host: req.headers.host ?? '', path: url.pathname })
    const pathInfo = route(req, res, url)
    if (pathInfo === undefined) return
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => void runHttpBackend(projectRoot, req, url, pathInfo, Buffer.concat(chunks), res))
  }
  const server = options.tls ? createTlsServer(options.tls, handler) : createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  ;(options.defer ?? onTestFinished)(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const { port } = server.address() as AddressInfo
  return { url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`, port, requests }
}

async function runHttpBackend(projectRoot: string, req: IncomingMessage, url: URL, pathInfo: string, body: Buffer, res: ServerResponse): Promise<void> {
  const result = await execa('git', ['http-backend'], {
    input: body,
    encoding: 'buffer',
    reject: false,
    env: {
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: pathInfo,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
    },
  })
  const out = Buffer.from(result.stdout)
  // An error reply may end right after its headers, without the blank line.
  const split = out.indexOf('\r\n\r\n')
  const head = split === -1 ? out.toString() : out.subarray(0, split).toString()
  const headers = head
    .split('\r\n')
    .filter((l) => l !== '')
    .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as const)
  const status = Number(headers.find(([k]) => k.toLowerCase() === 'status')?.[1].slice(0, 3) ?? 200)
  res.writeHead(status, Object.fromEntries(headers.filter(([k]) => k.toLowerCase() !== 'status')))
  res.end(split === -1 ? undefined : out.subarray(split + 4))
}
