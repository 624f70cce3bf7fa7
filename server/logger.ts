/**
 * Where the server's logs go and how they read: JSON lines for log collectors, or pino-pretty's
 * coloured lines for a person at a terminal (`--log-format`, default pretty on a TTY).
 *
 * Guarantee: logging never stalls or stops the server. Lines are written asynchronously through
 * a bounded buffer: when the destination does not keep up (a stuck pipe) or fails (a full disk),
 * lines are dropped and counted instead of blocking the event loop or raising an error. JSON
 * lines are written in batches (BATCH_BYTES, or FLUSH_MS after the first line waiting), since a
 * write per line cost busy servers a third of their throughput; what is buffered is written at
 * exit.
 */
import os from 'node:os'
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import type { DestinationStream, LoggerOptions, SerializerFn } from 'pino'
import pino from 'pino'
import pretty from 'pino-pretty'
import type { LogFormat, LogLevel, Mode } from '../src/config.js'

/** Past this many buffered bytes, new lines are dropped until the destination catches up. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024
/** JSON lines are written once this many bytes wait... */
const BATCH_BYTES = 4096
/** ...or this long after the first of them was logged, so a quiet server's lines are not held. */
const FLUSH_MS = 100

/** Secrets that could reach a log line through a request or an error object. */
export const REDACT = {
  paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-setup-token"]', 'gitToken', '*.gitToken', 'token', '*.token', 'password', '*.password'],
  censor: '[redacted]',
}

/**
 * Query parameters that carry a caller's question (context's `query` and `topic`, search's
 * `libraryName` and `query`). In cloud mode questions are tenants' data, so the request log keeps
 * only the parameter's name; the path and the other parameters stay, to show the traffic's shape.
 */
const QUESTION_PARAMETERS = new Set(['query', 'topic', 'libraryname'])

const decodedName = (raw: string): string => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase()
  } catch {
    return raw.toLowerCase()
  }
}

/** The URL with the values of question-carrying query parameters replaced by `[redacted]`. */
export function redactQuestions(url: string): string {
  const at = url.indexOf('?')
  if (at === -1) return url
  const fields = url
    .slice(at + 1)
    .split('&')
    .map((field) => {
      const name = field.split('=', 1)[0]!
      return QUESTION_PARAMETERS.has(decodedName(name)) ? `${name}=${REDACT.censor}` : field
    })
  return `${url.slice(0, at + 1)}${fields.join('&')}`
}

/** Fastify's request serializer (its fields), with questions redacted from the URL. */
const cloudRequest: SerializerFn = (req: FastifyRequest) => ({
  method: req.method,
  url: redactQuestions(req.url),
  version: req.headers?.['accept-version'],
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
})

export interface LogDestination {
  stream: DestinationStream
  /** Lines lost to a full or stuck destination since the start. */
  dropped(): number
  /** Writes what is buffered, when the destination accepts it (at exit). */
  flush(): void
}

/**
 * JSON lines gathered into writes of about BATCH_BYTES, the first line waiting at most FLUSH_MS.
 * What waits is handed on when the process exits, whatever ends it.
 */
function batched(boom: ReturnType<typeof pino.destination>): { stream: DestinationStream; handOn(): void } {
  let waiting = ''
  let timer: NodeJS.Timeout | undefined
  const handOn = () => {
    clearTimeout(timer)
    timer = undefined
    if (waiting === '') return
    const lines = waiting
    waiting = ''
    boom.write(lines)
  }
  process.once('exit', () => {
    handOn()
    try {
      boom.flushSync()
    } catch {
      // The destination is full or gone: what is left is lost, as the guarantee says.
    }
  })
  return {
    stream: {
      write(line: string) {
        waiting += line
        if (waiting.length >= BATCH_BYTES) handOn()
        else timer ??= setTimeout(handOn, FLUSH_MS).unref()
      },
    },
    handOn,
  }
}

export function isPretty(format: LogFormat, isTTY = process.stdout.isTTY === true): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY)
}

/** A log destination on a file descriptor (stdout by default) that cannot block or crash the process. */
export function createLogDestination(format: LogFormat, fd = 1): LogDestination {
  let dropped = 0
  const boom = pino.destination({ dest: fd, sync: false, maxLength: MAX_BUFFERED_BYTES })
  // A dropped write holds a batch of lines: each counts.
  boom.on('drop', (data: string | Buffer) => (dropped += Math.max(1, String(data).split('\n').length - 1)))
  // A failed write (ENOSPC, EPIPE) keeps its lines buffered for the next attempt; maxLength bounds them.
  boom.on('error', () => dropped++)
  const json = isPretty(format) ? undefined : batched(boom)
  const stream =
    json?.stream ??
    pretty({
      destination: boom,
      colorize: process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,worker',
      // Serving processes of `serve --workers N` (1..N) say who they are; the primary (0) and a single process do not.
      messageFormat: '{if worker}[worker {worker}] {end}{msg}',
    })
  return {
    stream,
    dropped: () => dropped,
    flush: () => {
      json?.handOn()
      try {
        boom.flushSync()
      } catch {
        // The destination is still full or gone: what is left is lost, as the guarantee says.
      }
    },
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A liveness or readiness probe: polled every few seconds, so its lines are logged at debug. */
    probe?: boolean
  }
}

/**
 * One line per request, as an access log has: "request completed" at info with the request
 * (method, URL, host, caller's address), its status and duration. Fastify's "incoming request"
 * line is kept at debug, where a request that never completes can still be found: at info it
 * doubled the log's volume and cost a quarter of a small request's CPU (bench/RESULTS.md).
 * Probes (an orchestrator polls /api/ready every few seconds) are logged at debug only; a request
 * that errors is logged at error whatever it was.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else if (request.routeOptions.config?.probe) reply.log.debug(line, 'request completed')
    else reply.log.info(line, 'request completed')
  }
}

/**
 * `worker`: the process of `serve --workers N` that logs, 0 for the primary and 1..N for the
 * serving processes, on every line besides pino's pid and hostname; absent in a single process.
 * `mode`: in cloud mode request lines keep no question (redactQuestions).
 */
export function loggerOptions(level: LogLevel, worker?: number, mode: Mode = 'onprem'): LoggerOptions {
  return {
    level,
    redact: REDACT,
    ...(mode === 'cloud' ? { serializers: { req: cloudRequest } } : {}),
    ...(worker === undefined ? {} : { base: { pid: process.pid, hostname: os.hostname(), worker } }),
  }
}
