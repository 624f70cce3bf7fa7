/**
 * The one error handler: every failure leaves as `{error, message}` with the spec's status.
 * Lectern errors carry their own code; Fastify's validation and body errors map to 400/413;
 * anything unexpected is a 500 that names the request ID and nothing about the internals.
 * Requests Node's HTTP parser refuses before Fastify sees them get the same body shape
 * (`clientErrorHandler`, a Fastify option).
 */
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isDiskFull } from '../../src/disk-full.js'
import { isLecternError, LecternError } from '../../src/errors.js'

/** The error body MCP clients parse: JSON-RPC, with no request id to answer. */
export const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null })

function fastifyErrorBody(err: FastifyError): { status: number; body: { error: string; message: string } } | undefined {
  if (err.validation) {
    return { status: 400, body: { error: 'validation_error', message: err.message } }
  }
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, body: { error: 'payload_too_large', message: 'The request body is too large.' } }
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    // The spec knows no 415 and the like: any other request Fastify refuses is a 400 validation_error.
    if (err.statusCode === 404) return { status: 404, body: { error: 'not_found', message: err.message } }
    return { status: 400, body: { error: 'validation_error', message: err.message } }
  }
  return undefined
}

/** A write the full data volume refused (SQLite, fs): the operator's to fix, said without internals. */
function diskFullError(err: unknown, request: FastifyRequest): LecternError | undefined {
  if (isLecternError(err) || !isDiskFull(err, request.server.runtime.store.paths.root)) return undefined
  request.log.error({ err }, 'a write failed: the data volume is full')
  return new LecternError('disk_full', 'The server\'s disk is full: this request needed to write and could not. Reads keep working; retry once an operator has freed space.')
}

const CLIENT_ERRORS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request line and headers are over the 16 KB the server reads; shorten the URL or the headers.',
  ERR_HTTP_REQUEST_TIMEOUT: 'The request did not arrive in time; send it again.',
}

/**
 * A request that never reached a route: headers over Node's limit, a request that is not HTTP,
 * one that did not arrive in time. The answer is 400 validation_error, since the spec knows no
 * 431 or 408 and the client has to change or resend the request either way; the request itself
 * is never echoed.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const error = new LecternError('validation_error', CLIENT_ERRORS[err.code ?? ''] ?? 'The request is not valid HTTP.')
  const body = JSON.stringify(error.toBody())
  this.log.debug({ code: err.code }, 'refused a malformed request')
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${error.status} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy()
}

async function errors(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((caught: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const err = (diskFullError(caught, request) ?? caught) as FastifyError
    // MCP clients parse JSON-RPC, not Lectern's error body.
    if (request.url.split('?')[0] === '/mcp') {
      const status = isLecternError(err) ? err.status : (fastifyErrorBody(err)?.status ?? 500)
      if (status >= 500) request.log.error({ err }, 'unexpected error')
      return reply.code(status).send(jsonRpcError(-32001, status >= 500 ? `Internal error (request ID ${request.id}).` : err.message))
    }
    if (isLecternError(err)) {
      if (err.status >= 500) request.log.warn({ code: err.code, reason: err.message }, 'request failed')
      return reply.code(err.status).type('application/json; charset=utf-8').send(err.toBody())
    }
    const mapped = fastifyErrorBody(err)
    if (mapped) return reply.code(mapped.status).type('application/json; charset=utf-8').send(mapped.body)
    request.log.error({ err }, 'unexpected error')
    return reply
      .code(500)
      .type('application/json; charset=utf-8')
      .send({ error: 'internal_error', message: `Internal error; the server log has details under request ID ${request.id}.` })
  })
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}.` }),
  )
}

export default fp(errors, { name: 'lectern-errors' })
