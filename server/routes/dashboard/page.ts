/**
 * The dashboard: the single-page app built from web/ into dist/web/ (Vite), served by Lectern
 * itself so an airgapped host needs nothing else. Assets have content-hashed names, so they are
 * cached for a year and sent precompressed (brotli or gzip, written at build); the page itself
 * is revalidated on every load. Every dashboard response carries a strict Content-Security-Policy:
 * scripts, styles and connections from this server only, no inline code, no frames.
 *
 * Neither the page nor its assets count against the anonymous rate limit.
 *
 * The app routes in the browser (/libraries, /queue...): a browser asking for such a path (it
 * accepts text/html) gets the page, anything else unknown keeps the API's JSON 404.
 */
import fs from 'node:fs'
import path from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { LecternError } from '../../../src/errors.js'
import { PACKAGE_ROOT } from '../../../src/install/version.js'

export const DASHBOARD_DIR = path.join(PACKAGE_ROOT, 'dist', 'web')

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** Paths the app never owns: their unknown routes answer JSON, whatever the client accepts. */
const API_PREFIXES = ['/api/', '/mcp', '/ping', '/assets/']

function securityHeaders(set: (name: string, value: string) => unknown): void {
  set('content-security-policy', CONTENT_SECURITY_POLICY)
  set('x-content-type-options', 'nosniff')
  set('referrer-policy', 'same-origin')
  set('x-frame-options', 'DENY')
}

export default async function dashboard(app: FastifyInstance): Promise<void> {
  const built = fs.existsSync(path.join(DASHBOARD_DIR, 'index.html'))
  // The page and its assets are not counted against the anonymous rate limit: an office behind
  // one NAT address loading the sign-in page must not lock its MCP clients out. This plugin's
  // routes only (the static plugin's included); a wrong API key is still counted (rate-limit.ts).
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, rateLimited: false }
  })
  await app.register(fastifyStatic, {
    root: path.join(DASHBOARD_DIR, 'assets'),
    prefix: '/assets/',
    wildcard: false,
    preCompressed: true,
    index: false,
    immutable: true,
    maxAge: '365d',
    setHeaders: (res) => securityHeaders((name, value) => res.setHeader(name, value)),
  })
  const page = async (_request: FastifyRequest, reply: FastifyReply) => {
    if (!built) throw new LecternError('not_found', 'The dashboard was not built (dist/web/ is missing): run `npm run build`.')
    securityHeaders((name, value) => reply.header(name, value))
    return reply.header('cache-control', 'no-cache').sendFile('index.html', DASHBOARD_DIR, { cacheControl: false })
  }
  app.get('/', page)
  app.get('/*', (request, reply) => {
    const url = request.url.split('?')[0]!
    const wantsPage = (request.headers.accept ?? '').includes('text/html') && !API_PREFIXES.some((prefix) => url.startsWith(prefix))
    return wantsPage ? page(request, reply) : reply.callNotFound()
  })
}
