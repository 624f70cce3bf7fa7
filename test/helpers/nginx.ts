/**
 * A real nginx (Debian's, installed by npm test: scripts/system-packages.sh) terminating TLS on
 * 127.0.0.1 in front of an upstream, as README's "Behind a reverse proxy" sets it up, with a self-signed certificate made
 * by openssl; and a client that can choose its source address and trust that certificate.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import path from 'node:path'
import { promisify } from 'node:util'
import { execa } from 'execa'
import { pollUntil } from './poll.js'
import { freePort } from './server.js'
import { requireSystemCommand } from './system.js'
import { tmpDir, type Defer } from './tmp.js'

export const NGINX = '/usr/sbin/nginx'

export interface TlsProxy {
  /** https://127.0.0.1:<port> */
  url: string
  /** The certificate (PEM) a client must trust. */
  ca: string
}

/** Starts nginx proxying https://127.0.0.1:<free port>/ to `upstream`; stopped by `defer`. */
export async function startTlsProxy(upstream: string, defer: Defer): Promise<TlsProxy> {
  requireSystemCommand(NGINX, 'nginx')
  requireSystemCommand('openssl', 'openssl')
  const dir = await tmpDir('lectern-nginx-', defer)
  const cert = path.join(dir, 'cert.pem')
  const key = path.join(dir, 'key.pem')
  await promisify(execFile)('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
  ])
  const port = await freePort()
  // One process in the foreground (no workers switching user), every file inside `dir`.
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${cert};
    ssl_certificate_key ${key};
    location / {
      proxy_pass ${upstream};
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $host;
    }
  }
}
`,
  )
  const nginx = execa(NGINX, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')], { stdin: 'ignore', reject: false })
  defer(async () => {
    nginx.kill('SIGTERM')
    await nginx
  })
  const proxy = { url: `https://127.0.0.1:${port}`, ca: fs.readFileSync(cert, 'utf8') }
  await pollUntil('nginx to proxy to the server', async () => {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}: ${fs.readFileSync(path.join(dir, 'error.log'), 'utf8')}`)
    const res = await request(`${proxy.url}/api/ready`, { ca: proxy.ca }).catch(() => undefined)
    return res?.status === 200 ? true : undefined
  })
  return proxy
}

export interface ClientOptions {
  method?: string
  headers?: Record<string, string>
  body?: unknown
  /** The source address of the connection, e.g. 127.0.0.2 (all of 127/8 is loopback on Linux). */
  localAddress?: string
  /** A certificate to trust for https. */
  ca?: string
}

export interface ClientResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** One request on a fresh connection (no keep-alive), from `localAddress` when given. */
export function request(url: string, options: ClientOptions = {}): Promise<ClientResponse> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body)
  const headers = { ...options.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }
  const transport = url.startsWith('https:') ? https : http
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { method: options.method ?? 'GET', headers, localAddress: options.localAddress, ca: options.ca, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}
