/**
 * Talking to `lectern serve --workers N` and telling which process answered: each response's
 * x-request-id names its `request completed` line in the server's JSON log, which names its
 * `worker`. Requests go out on a new connection each: cluster hands out connections, not
 * requests, round-robin, so consecutive ones reach the workers in turn.
 */
import { request } from 'node:http'
import { pollUntil } from './poll.js'
import type { ServerProcess } from './server.js'

export type Line = Record<string, unknown> & { msg: string; level: number }

/** Every JSON line the server writes to stdout from now on, as it arrives. */
export function collectLog(server: ServerProcess): Line[] {
  const lines: Line[] = []
  let partial = ''
  server.process.stdout!.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8')
    const parts = text.split('\n')
    partial = parts.pop()!
    for (const part of parts) if (part.trim() !== '') lines.push(JSON.parse(part) as Line)
  })
  return lines
}

export interface Sent {
  method?: string
  headers?: Record<string, string>
  body?: string
}

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One request on a connection of its own (no keep-alive agent). */
export function send(url: string, options: Sent = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

/** The worker whose log completed this response's request. */
export function workerOf(lines: Line[], answer: Answer): Promise<number> {
  const id = answer.headers['x-request-id']
  return pollUntil(`the log line of request ${String(id)}`, () => {
    const line = lines.find((l) => l.reqId === id && l.msg === 'request completed')
    return line ? (line.worker as number) : undefined
  }, 10_000)
}
