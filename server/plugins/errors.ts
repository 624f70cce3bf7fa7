/**
 * The one error handler: every failure leaves as `{error, message}` with the spec's status.
 * Lectern errors carry their own code; Fastify's validation and body errors map to 400/413;
 * anything unexpected is a 500 that names the request ID and nothing about the internals.
 * Requests Node's HTTP parser refuses before Fastify sees them get the same body shape
 * (`clientErrorHandler`, a Fastify option), and so do those Fastify's router refuses before any
 * hook runs, such as a URL with broken percent-encoding (`frameworkErrors`, a Fastify option).
 * Messages are Lectern's own: neither Fastify's nor a parser's text reaches the client.
 */
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { isDiskFull } from '../../src/install/disk-full.js'
import { isLecternError, LecternError } from '../../src/errors.js'
import { auditBlocked } from '../audit-context.js'

/** The error body MCP clients parse: JSON-RPC, with no request id to answer. */
export const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null })

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/**
 * What Fastify and @fastify/multipart refuse, said in Lectern's words. Upload limits come from
 * the route's config (server/uploads.ts), so a refusal names the number the endpoint takes.
 */
function frameworkMessage(err: FastifyError, request: FastifyRequest): string | undefined {
  const limits = request.routeOptions.config?.uploadLimits
  switch (err.code) {
    case 'FST_FIELDS_LIMIT':
      return limits ? `The upload has more form fields than the ${limits.fields} this endpoint takes.` : 'The upload has more form fields than this endpoint takes.'
    case 'FST_FILES_LIMIT':
      return limits ? `The upload has more files than the ${plural(limits.files, 'file', 'files')} this endpoint takes.` : 'The upload has more files than this endpoint takes.'
    case 'FST_PARTS_LIMIT':
      return 'The upload has more parts than this endpoint takes.'
    case 'FST_REQ_FILE_TOO_LARGE':
      return limits ? `The uploaded file is over the ${megabytes(limits.fileSize)} this endpoint takes.` : 'The uploaded file is too large.'
    case 'FST_PROTO_VIOLATION':
      return 'Form fields may not be named __proto__, constructor or another built-in object property.'
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return 'Send the upload as multipart/form-data.'
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return 'A form field sent as application/json is not valid JSON.'
    case 'FST_ERR_BAD_URL':
      return 'The URL is not valid: a percent sign must start a %XX escape of valid UTF-8.'
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return 'A path segment of the URL is too long.'
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is over the size this endpoint takes.'
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Content-Type ${request.headers['content-type'] ? 'of this body is not one this endpoint reads' : 'is missing'}; send JSON with "Content-Type: application/json"${request.routeOptions.config?.uploadLimits ? ', or a file as multipart/form-data' : ''}.`
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'The body is not as long as its Content-Length header says.'
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The body is empty but Content-Type says application/json; send a JSON body or no Content-Type.'
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'The body is not valid JSON.'
    default:
      return undefined
  }
}

/** What the validator reports of one failed check (Ajv's error object, the part read here). */
interface SchemaIssue {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
}

const CONTEXT_NAMES: Record<string, string> = { body: 'Field', querystring: 'Query parameter', params: 'Path parameter', headers: 'Header' }

/** A JSON Schema type as a person would say it. */
const TYPE_NAMES: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
}

/** The part of a route's schema at a JSON pointer into the request part it checks. */
function schemaAt(schema: unknown, instancePath: string): Record<string, unknown> | undefined {
  let node = schema as Record<string, unknown> | undefined
  for (const segment of instancePath.split('/').slice(1)) {
    const properties = node?.properties as Record<string, Record<string, unknown>> | undefined
    node = properties?.[segment] ?? (node?.items as Record<string, unknown> | undefined)
  }
  return node
}

/**
 * A failed schema check said plainly: the parameter by its name (`Query parameter days`, not
 * `querystring/days`), the allowed values of an enum, the fields an object may set, the field it
 * does not take (a misspelt one is refused, not dropped: see app.ts), the one missing, a wrong type, an
 * empty or too long string. Other checks keep the validator's wording, which already names what it wants.
 */
function validationMessage(err: FastifyError, request: FastifyRequest): string {
  const issue = (err.validation as SchemaIssue[] | undefined)?.[0]
  const context = (err as FastifyError & { validationContext?: string }).validationContext ?? 'body'
  if (!issue) return err.message
  const field = issue.instancePath.slice(1).replaceAll('/', '.')
  const subject = field === '' ? (context === 'body' ? 'The body' : `The ${CONTEXT_NAMES[context]?.toLowerCase() ?? context}`) : `${CONTEXT_NAMES[context] ?? context} ${field}`
  switch (issue.keyword) {
    case 'enum':
      return `${subject} must be one of: ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const bound = { minimum: 'at least', maximum: 'at most', exclusiveMinimum: 'more than', exclusiveMaximum: 'less than' }[issue.keyword]
      return `${subject} must be ${bound} ${String(issue.params.limit)}.`
    }
    case 'required':
      return `${CONTEXT_NAMES[context] ?? context} ${field === '' ? '' : `${field}.`}${String(issue.params.missingProperty)} is required.`
    case 'type':
      return `${subject} must be ${String(issue.params.type)
        .split(',')
        .map((type) => TYPE_NAMES[type] ?? type)
        .join(' or ')}.`
    case 'minLength':
      return Number(issue.params.limit) === 1 ? `${subject} must not be empty.` : `${subject} must be at least ${String(issue.params.limit)} characters.`
    case 'maxLength':
      return `${subject} must be at most ${String(issue.params.limit)} characters.`
    case 'additionalProperties':
      return `${subject} has a field it does not take: "${String(issue.params.additionalProperty)}".`
    case 'minProperties': {
      const routeSchema = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[context]
      const fields = Object.keys((schemaAt(routeSchema, issue.instancePath)?.properties as object | undefined) ?? {})
      const min = Number(issue.params.limit)
      return `${subject} must set at least ${min === 1 ? 'one field' : `${min} fields`}${fields.length > 0 ? ` of: ${fields.join(', ')}` : ''}.`
    }
    default:
      return err.message
  }
}

/** Fastify's and multipart's refusals: too large is 413, anything else the client can fix is 400. */
function fastifyErrorBody(err: FastifyError, request: FastifyRequest): { status: number; body: { error: string; message: string } } | undefined {
  if (err.validation) {
    return { status: 400, body: { error: 'validation_error', message: validationMessage(err, request) } }
  }
  const message = frameworkMessage(err, request)
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.code === 'FST_REQ_FILE_TOO_LARGE') {
    return { status: 413, body: { error: 'payload_too_large', message: message as string } }
  }
  if (message) return { status: 400, body: { error: 'validation_error', message } }
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

/**
 * Requests Fastify's router refuses before any hook or handler (a URL with broken
 * percent-encoding, a path segment over the length limit): the same answer the error handler
 * would give. No route matched, so it is the spec's body even for a path that starts with /mcp.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  request.log.debug({ code: err.code }, 'refused a request the router could not take')
  const mapped = fastifyErrorBody(err, request) ?? { status: 400, body: { error: 'validation_error', message: 'The request is not valid.' } }
  reply.code(mapped.status).type('application/json; charset=utf-8').send(mapped.body)
}

async function errors(app: FastifyInstance): Promise<void> {
  app.setErrorHandler((caught: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const err = (diskFullError(caught, request) ?? caught) as FastifyError
    if (isLecternError(err)) auditBlocked(request, err)
    // MCP clients parse JSON-RPC, not Lectern's error body.
    if (request.url.split('?')[0] === '/mcp') {
      const status = isLecternError(err) ? err.status : (fastifyErrorBody(err, request)?.status ?? 500)
      if (status >= 500) request.log.error({ err }, 'unexpected error')
      const message = isLecternError(err) ? err.message : fastifyErrorBody(err, request)?.body.message
      return reply.code(status).send(jsonRpcError(-32001, status >= 500 || !message ? `Internal error (request ID ${request.id}).` : message))
    }
    if (isLecternError(err)) {
      if (err.status >= 500) request.log.warn({ code: err.code, reason: err.message }, 'request failed')
      if (typeof err.extra.retryAfter === 'number') reply.header('Retry-After', err.extra.retryAfter)
      return reply.code(err.status).type('application/json; charset=utf-8').send(err.toBody())
    }
    const mapped = fastifyErrorBody(err, request)
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
