/**
 * MCP over streamable HTTP, stateless: every POST carries a whole exchange, so a fresh
 * transport serves it and no session outlives the request. Answers are plain JSON rather than
 * an event stream, which every streamable-HTTP client accepts. GET and DELETE (streams and
 * sessions) are refused with 405. A tool call takes one unit of the caller's rate limit.
 *
 * Building an McpServer costs about 2 ms (the SDK compiles its validators per instance), more
 * than answering a question; so idle servers are pooled, each serving one request at a time.
 */
import { auditBlocked } from '../audit-context.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ANONYMOUS } from '../../src/library/access.js'
import { LecternError } from '../../src/errors.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { createMcpServer, type McpCaller } from '../../src/mcp/tools.js'
import { readSetting } from '../../src/settings.js'
import { clientKind } from '../../src/usage/recorder.js'
import { jsonRpcError } from '../plugins/errors.js'


interface PooledServer {
  server: McpServer
  caller: { current: McpCaller }
}

/** Idle servers kept for reuse; more than this many concurrent requests build extra ones. */
const POOL_SIZE = 32

/** Who asks, for the metrics' unique users: the API key, else the session's user, else the address. */
function askerOf(request: FastifyRequest): string {
  if (request.apiKey) return `key:${request.apiKey.id}`
  if (request.user) return `user:${request.user.id}`
  return `address:${request.ip}`
}

async function handlePost(app: FastifyInstance, pool: PooledServer[], request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { countryHeader } = app.lecternOptions.config.metrics
  if (!request.apiKey && await readSetting(app.runtime.store.settings, 'mcp.requireKey')) {
    throw new LecternError('invalid_api_key', 'This Lectern requires an API key for MCP: send "Authorization: Bearer <API key>".')
  }
  const entry = pool.pop() ?? newPooledServer(app)
  entry.caller.current = {
    caller: request.caller,
    transport: 'mcp-http',
    client: clientKind(request.headers['x-context7-source'], 'mcp-client'),
    user: askerOf(request),
    country: countryHeader ? request.headers[countryHeader] : undefined,
    takeRateLimit: async () => {
      const decision = await app.rateLimiter.take(request)
      return decision.allowed ? undefined : `Rate limit exceeded: retry in ${decision.retryAfter} s${request.apiKey || request.user ? '' : ', or use an API key for a higher limit'}.`
    },
    onRefused: (err) => auditBlocked(request, err),
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  reply.hijack()
  // A hijacked reply skips Fastify's onSend hooks, which send the request ID on every other route.
  reply.raw.setHeader('x-request-id', request.id)
  reply.raw.on('close', () => {
    // Closing the transport disconnects the server, which can then take the next request.
    void transport.close().then(() => {
      if (pool.length < POOL_SIZE) pool.push(entry)
    })
  })
  await entry.server.connect(transport)
  await transport.handleRequest(request.raw, reply.raw, request.body)
}

function newPooledServer(app: FastifyInstance): PooledServer {
  const caller = { current: { caller: ANONYMOUS, transport: 'mcp-http', client: 'mcp-client' } as McpCaller }
  return { server: createMcpServer(app.runtime, caller), caller }
}

export default async function mcp(app: FastifyInstance): Promise<void> {
  const pool: PooledServer[] = []
  app.post('/mcp', (request, reply) => handlePost(app, pool, request, reply))
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).header('allow', 'POST').send(jsonRpcError(-32000, 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.'))
  app.get('/mcp', notAllowed)
  app.delete('/mcp', notAllowed)
  app.get('/ping', { config: { probe: true } }, async () => ({ status: 'ok', message: 'pong' }))
}
