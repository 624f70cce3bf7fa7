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
  const url = await startNginx(dir, `
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
  }`, port, { scheme: 'https', ca: fs.readFileSync(cert, 'utf8') }, defer)
  return { url, ca: fs.readFileSync(cert, 'utf8') }
}

/**
 * nginx in front of several replicas with deploy/nginx-replicas.conf as shipped, its upstream's one
 * `server` (the Compose service) replaced by the replicas' loopback ports and its `listen 80` by a
 * free loopback port. Returns its http:// URL, once it answers /api/ready.
 */
export async function startReplicasProxy(replicaPorts: number[], defer: Defer): Promise<string> {
  requireSystemCommand(NGINX, 'nginx')
  const dir = await tmpDir('lectern-nginx-', defer)
  const port = await freePort()
  const shipped = fs.readFileSync(new URL('../../deploy/nginx-replicas.conf', import.meta.url), 'utf8')
  const server = /^( *)server lectern:3000( [^;]*);$/m
  if (!server.test(shipped) || !/^ *listen 80;$/m.test(shipped)) throw new Error('deploy/nginx-replicas.conf no longer has the upstream server and listen lines this helper rewrites')
  const conf = shipped
    .replace(server, (_line, indent: string, options: string) => replicaPorts.map((p) => `${indent}server 127.0.0.1:${p}${options};`).join('\n'))
    .replace(/^( *)listen 80;$/m, `$1listen 127.0.0.1:${port};`)
  return await startNginx(dir, conf, port, { scheme: 'http' }, defer)
}

/** Runs nginx in the foreground with `httpConf` inside its http block, every file in `dir`; resolves once /api/ready answers 200 through it. */
async function startNginx(dir: string, httpConf: string, port: number, client: { scheme: 'http' | 'https'; ca?: string }, defer: Defer): Promise<string> {
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
${httpConf}
}
`,
  )
  const nginx = execa(NGINX, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')], { stdin: 'ignore', reject: false })
  defer(async () => {
    nginx.kill('SIGTERM')
    await nginx
  })
  const url = `${client.scheme}://127.0.0.1:${port}`
  await pollUntil('nginx to proxy to the server', async () => {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}: ${fs.readFileSync(path.join(dir, 'error.log'), 'utf8')}`)
    const res = await request(`${url}/api/ready`, { ca: client.ca }).catch(() => undefined)
    return res?.status === 200 ? true : undefined
  })
  return url
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
