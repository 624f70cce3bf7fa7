/**
 * Where the server's logs go and how they read: JSON lines for log collectors, or pino-pretty's
 * coloured lines for a person at a terminal (`--log-format`, default pretty on a TTY).
 *
 * Guarantee: logging never stalls or stops the server. Lines are written asynchronously through
 * a bounded buffer: when the destination does not keep up (a stuck pipe) or fails (a full disk),
 * lines are dropped and counted instead of blocking the event loop or raising an error.
 *
 * JSON lines are written in batches, at most FLUSH_MS after the first line of a batch was logged:
 * with a write per line, and two lines a request, logging took 28 % of a busy server's
 * throughput; batched, one line a request, 13 % (bench/RESULTS.md). A batch ends at a line and
 * holds at most PIPE_BUF bytes (a longer line goes alone), so the processes of `serve --workers`,
 * which share stdout, do not interleave within a line. What waits is written at a normal exit; a
 * crash that skips 'exit' (SIGKILL, an out-of-memory abort) loses at most FLUSH_MS of lines.
 */
import fs from 'node:fs'
import os from 'node:os'
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import type { DestinationStream, LoggerOptions, SerializerFn } from 'pino'
import pino from 'pino'
import pretty, { type MessageFormatFunc } from 'pino-pretty'
import type { LogFormat, LogLevel, Mode } from '../src/config.js'

/** Past this many buffered bytes, new lines are dropped until the destination catches up. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024
/** The most one write to a pipe holds and stays whole beside other processes' writes (Linux). */
const PIPE_BUF = 4096
/** How long the first line of a batch waits for others, so a quiet server's lines are not held. */
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
  /** Writes what is buffered, synchronously, when the destination accepts it (at stop). */
  flush(): void
}

/** JSON lines gathered into line-aligned writes of at most PIPE_BUF bytes (see the header). */
function batched(boom: ReturnType<typeof pino.destination>, fd: number, onLost: (lines: string) => void) {
  let waiting = ''
  let bytes = 0
  let timer: NodeJS.Timeout | undefined
  const take = () => {
    clearTimeout(timer)
    timer = undefined
    const lines = waiting
    waiting = ''
    bytes = 0
    return lines
  }
  const handOn = () => {
    const lines = take()
    if (lines === '') return
    try {
      boom.write(lines)
    } catch {
      // Ended at exit: the exit handler wrote what it could.
      onLost(lines)
    }
  }
  /** Everything, synchronously: what the destination holds, then what waits here. */
  const writeAll = () => {
    const lines = take()
    try {
      boom.flushSync()
    } catch {
      // The destination is still full or gone: what is left is lost, as the guarantee says.
    }
    if (lines === '') return
    try {
      fs.writeSync(fd, lines)
    } catch {
      onLost(lines)
    }
  }
  process.once('exit', writeAll)
  const stream: DestinationStream = {
    write(line: string) {
      const size = Buffer.byteLength(line)
      if (bytes + size > PIPE_BUF) handOn()
      waiting += line
      bytes += size
      if (bytes >= PIPE_BUF) handOn()
      else timer ??= setTimeout(handOn, FLUSH_MS).unref()
    },
  }
  return { stream, writeAll }
}

export function isPretty(format: LogFormat, isTTY = process.stdout.isTTY === true): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY)
}

/**
 * A pretty line's message. Serving processes of `serve --workers N` (1..N) say who they are; the
 * primary (0) and a single process do not. A request's line says it in one line, as an access
 * log does, where pino-pretty would print its req and res objects as a dozen lines.
 */
const prettyMessage: MessageFormatFunc = (log, messageKey) => {
  const worker = log.worker ? `[worker ${String(log.worker)}] ` : ''
  const req = log.req as { method?: string; url?: string; remoteAddress?: string } | undefined
  const res = log.res as { statusCode?: number } | undefined
  const request = [
    req ? ` ${req.method} ${req.url}` : '',
    res?.statusCode === undefined ? '' : ` ${res.statusCode}`,
    typeof log.responseTime === 'number' ? ` ${log.responseTime.toFixed(1)} ms` : '',
  ].join('')
  // Any line logged for a request names it, whether or not it carries the request.
  const context = [log.reqId, req?.remoteAddress].filter((part) => part !== undefined)
  return `${worker}${String(log[messageKey] ?? '')}${request}${context.length > 0 ? ` (${context.join(', ')})` : ''}`
}

/** A log destination on a file descriptor (stdout by default) that cannot block or crash the process. */
export function createLogDestination(format: LogFormat, fd = 1): LogDestination {
  let dropped = 0
  // A lost write may hold a batch of lines: each counts.
  const lost = (data: string | Buffer) => (dropped += Math.max(1, String(data).split('\n').length - 1))
  // maxWrite: SonicBoom joins waiting writes up to it; kept at PIPE_BUF, batches stay whole.
  const boom = pino.destination({ dest: fd, sync: false, maxLength: MAX_BUFFERED_BYTES, maxWrite: PIPE_BUF })
  boom.on('drop', lost)
  // A failed write (ENOSPC, EPIPE) keeps its lines buffered for the next attempt; maxLength bounds them.
  boom.on('error', () => dropped++)
  const json = isPretty(format) ? undefined : batched(boom, fd, lost)
  const stream =
    json?.stream ??
    pretty({
      destination: boom,
      colorize: process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,worker,req,res,responseTime,reqId',
      messageFormat: prettyMessage,
    })
  return {
    stream,
    dropped: () => dropped,
    flush: () => {
      if (json) return json.writeAll()
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
 * (method, URL, host, caller's address), its status and duration; "request aborted" for one whose
 * client left before its answer was sent; "request errored" at error. Fastify's "incoming request"
 * line is at debug: at info it doubled the log's volume for no more information. Probes (an
 * orchestrator polls /api/ready every few seconds) are logged at debug only.
 */
/** Requests whose completion or error was logged; any other, at its response's close, was left by its client. */
const completed = new WeakSet<FastifyRequest>()

export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    request.log.debug({ req: request }, 'incoming request')
    // Read now, the caller's address is kept by the socket (net.Socket caches it): once the client
    // has left, an unread one is gone, and its "request aborted" line would not say who it was.
    void request.socket?.remoteAddress
    // A client that leaves before its answer is sent completes no request: it is logged here.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished && !completed.has(request)) request.log.info({ req: request, responseTime: reply.elapsedTime }, 'request aborted')
    })
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    completed.add(request)
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
