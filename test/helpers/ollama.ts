/**
 * A loopback server speaking Ollama's /api/embed (Ollama cannot run here): the documented
 * subset `POST /api/embed {model, input: string[]} -> {model, embeddings: number[][]}`, and
 * 404 `{"error": "model \"x\" not found, try pulling it first"}` for an unknown model.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

export interface EmbedCall {
  model: string
  input: string[]
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
  res.end(JSON.stringify(body))
}

/** The server, not yet listening, and the calls it received. */
export function ollamaStandIn(options: { models: Record<string, number>; vectorLength?: (call: number, item: number) => number }) {
  const calls: EmbedCall[] = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/api/embed') return json(res, 404, { error: 'not found' })
      const call = JSON.parse(body) as EmbedCall
      calls.push(call)
      const dims = options.models[call.model]
      if (dims === undefined) return json(res, 404, { error: `model "${call.model}" not found, try pulling it first` })
      const embeddings = call.input.map((text, item) => {
        const length = options.vectorLength?.(calls.length - 1, item) ?? dims
        return Array.from({ length }, (_, i) => (text.length + i) / 100)
      })
      json(res, 200, { model: call.model, embeddings, total_duration: 1, load_duration: 0, prompt_eval_count: 1 })
    })
  })
  return { server, calls }
}
