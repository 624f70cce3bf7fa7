/**
 * A loopback server speaking Ollama's /api/embed, standing in for Ollama (which cannot run
 * here): `POST /api/embed {model, input: string[]} -> {model, embeddings: number[][]}`. Its
 * vectors are a deterministic function of the text, and `fail` can make any call answer 500
 * the way an overloaded or crashed Ollama does.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { EmbedderSettings } from '../../src/embed/types.js'

export interface StandIn {
  url: string
  /** The embedding settings that use this stand-in (as `lectern config set embedding.provider ollama` saves them). */
  settings: EmbedderSettings
  calls: string[][]
  /** Decides per call (0-based) whether to fail it; change it at any time. */
  fail: (call: number) => boolean
  close(): Promise<void>
}

export async function ollamaStandIn(dimensions: number): Promise<StandIn> {
  const standIn: StandIn = { url: '', settings: { provider: 'ollama' }, calls: [], fail: () => false, close: async () => {} }
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
        res.end(JSON.stringify(value))
      }
      if (req.method !== 'POST' || req.url !== '/api/embed') return send(404, { error: 'not found' })
      const { model, input } = JSON.parse(body) as { model: string; input: string[] }
      const call = standIn.calls.push(input) - 1
      if (standIn.fail(call)) return send(500, { error: 'simulated outage' })
      const embeddings = input.map((text) => Array.from({ length: dimensions }, (_, i) => Math.sin(text.length * (i + 1)) + (text.charCodeAt(i % text.length) || 0) / 1000))
      send(200, { model, embeddings })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  standIn.settings = { provider: 'ollama', model: 'nomic-embed-text', host: standIn.url }
  standIn.close = () => new Promise((resolve) => server.close(() => resolve()))
  return standIn
}
