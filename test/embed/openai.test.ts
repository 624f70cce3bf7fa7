import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { probeEmbedder } from '../../src/embed/index.js'
import { OpenAiEmbedder } from '../../src/embed/openai.js'
import { LecternError } from '../../src/errors.js'

interface Request {
  url: string
  headers: IncomingHttpHeaders
  body: { model: string; input: string[] }
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> }

/**
 * A loopback server speaking the OpenAI-compatible `POST /v1/embeddings` that vLLM, TEI and
 * LocalAI serve. `reply` decides each answer; by default every text gets a 4-dim vector whose
 * first value is the text's length, listed in reverse `index` order to prove reordering.
 */
function embeddingsServer(reply: (request: Request, n: number) => Reply = (request) => ok(request.body.input, 4)) {
  const requests: Request[] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()))
    req.on('end', () => {
      const request = { url: req.url ?? '', headers: req.headers, body: JSON.parse(raw) as Request['body'] }
      requests.push(request)
      const answer = request.url === '/v1/embeddings' ? reply(request, requests.length) : { status: 404, body: { error: 'no route' } }
      send(res, answer)
    })
  })
  return { server, requests }
}

function ok(input: string[], dims: number): Reply {
  const data = input.map((text, index) => ({
    object: 'embedding',
    index,
    embedding: Array.from({ length: dims }, (_, i) => (i === 0 ? text.length : i / 10)),
  }))
  return { status: 200, body: { object: 'list', model: 'm', data: data.reverse(), usage: { prompt_tokens: 1, total_tokens: 1 } } }
}

function send(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
  res.end(JSON.stringify(reply.body))
}

const servers: Server[] = []

async function listen(server: Server): Promise<string> {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function close(server: Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}

afterEach(async () => {
  await Promise.all(servers.splice(0).filter((s) => s.listening).map(close))
})

const fast = { retryBaseMs: 1 }

describe('OpenAiEmbedder against a loopback server speaking /v1/embeddings', () => {
  it('reorders data by index, batches, and learns the dimension', async () => {
    const { server, requests } = embeddingsServer()
    const host = await listen(server)
    const e = new OpenAiEmbedder({ host, model: 'bge-small', batchSize: 3 })
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee']
    const vectors = await e.embed(texts)
    expect(vectors.map((v) => v[0])).toEqual([1, 2, 3, 4, 5])
    expect(requests.map((r) => r.body)).toEqual([
      { model: 'bge-small', input: ['a', 'bb', 'ccc'] },
      { model: 'bge-small', input: ['dddd', 'eeeee'] },
    ])
    expect(await e.dimensions()).toBe(4)
  })

  it.each(['', '/', '/v1', '/v1/'])('accepts the host with suffix %j', async (suffix) => {
    const { server, requests } = embeddingsServer()
    const host = await listen(server)
    await new OpenAiEmbedder({ host: host + suffix, model: 'm' }).embed(['x'])
    expect(requests[0].url).toBe('/v1/embeddings')
  })

  it('sends the Bearer header only when an apiKey is set', async () => {
    const { server, requests } = embeddingsServer()
    const host = await listen(server)
    await new OpenAiEmbedder({ host, model: 'm' }).embed(['x'])
    await new OpenAiEmbedder({ host, model: 'm', apiKey: 'sk-test-123' }).embed(['x'])
    expect(requests[0].headers.authorization).toBeUndefined()
    expect(requests[1].headers.authorization).toBe('Bearer sk-test-123')
  })

  it('retries a 429 with Retry-After: 0, then succeeds', async () => {
    const { server, requests } = embeddingsServer((request, n) =>
      n === 1 ? { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '0' } } : ok(request.body.input, 4),
    )
    // A 60 s backoff base proves the wait came from Retry-After, not from the default backoff.
    const e = new OpenAiEmbedder({ host: await listen(server), model: 'm' }, { retryBaseMs: 60_000 })
    const vectors = await e.embed(['hello'])
    expect(vectors[0][0]).toBe(5)
    expect(requests).toHaveLength(2)
  })

  it('gives up after three retries of a 500, with the server message', async () => {
    const { server, requests } = embeddingsServer(() => ({ status: 500, body: { object: 'error', message: 'CUDA out of memory' } }))
    const e = new OpenAiEmbedder({ host: await listen(server), model: 'm' }, fast)
    const err = (await e.embed(['x']).catch((x: unknown) => x)) as LecternError
    expect(err).toBeInstanceOf(LecternError)
    expect(err.code).toBe('internal_error')
    expect(err.message).toMatch(/with model "m" failed with HTTP 500 after 4 attempts: CUDA out of memory/)
    expect(requests).toHaveLength(4)
  })

  it('does not retry a 401, and never echoes the key', async () => {
    const { server, requests } = embeddingsServer(() => ({
      status: 401,
      body: { error: { message: 'Incorrect API key provided: sk-secret-999' } },
    }))
    const e = new OpenAiEmbedder({ host: await listen(server), model: 'm', apiKey: 'sk-secret-999' }, fast)
    const err = (await e.embed(['x']).catch((x: unknown) => x)) as LecternError
    expect(err.message).toContain('HTTP 401: Incorrect API key provided: ***; check the API key.')
    expect(err.message).not.toContain('sk-secret-999')
    expect(requests).toHaveLength(1)
  })

  it('rejects a vector of the wrong length', async () => {
    const { server } = embeddingsServer((request, n) => ok(request.body.input, n === 1 ? 4 : 3))
    const e = new OpenAiEmbedder({ host: await listen(server), model: 'm', batchSize: 1 })
    await expect(e.embed(['a', 'b'])).rejects.toThrow('returned a vector of 3 dimensions, expected 4')
  })

  it('rejects a wrong number of embeddings and broken indexes', async () => {
    const short = embeddingsServer((request) => ok(request.body.input.slice(1), 4))
    const e1 = new OpenAiEmbedder({ host: await listen(short.server), model: 'm' })
    await expect(e1.embed(['a', 'b'])).rejects.toThrow('returned 1 embeddings for 2 texts')

    const duplicate = embeddingsServer(() => ({
      status: 200,
      body: { data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }] },
    }))
    const e2 = new OpenAiEmbedder({ host: await listen(duplicate.server), model: 'm' })
    await expect(e2.embed(['a', 'b'])).rejects.toThrow('duplicate or out-of-range index 0')
  })

  it('times out a server that never answers', async () => {
    const server = createServer(() => {
      // Never answers.
    })
    const e = new OpenAiEmbedder({ host: await listen(server), model: 'm' }, { timeoutMs: 100 })
    await expect(e.embed(['x'])).rejects.toThrow('did not answer within 0.1 s')
  })

  it('cancels with the caller\'s reason, even while waiting to retry', async () => {
    const { server } = embeddingsServer(() => ({ status: 503, body: {}, headers: { 'retry-after': '5' } }))
    const e = new OpenAiEmbedder({ host: await listen(server), model: 'm' })
    const controller = new AbortController()
    const pending = e.embed(['x'], controller.signal)
    setTimeout(() => controller.abort(new Error('cancelled by test')), 100)
    await expect(pending).rejects.toThrow('cancelled by test')
  })

  it('names host and model when the server is unreachable', async () => {
    const { server } = embeddingsServer()
    const host = await listen(server)
    await close(server)
    const err = (await new OpenAiEmbedder({ host, model: 'm' }).embed(['x']).catch((x: unknown) => x)) as LecternError
    expect(err).toBeInstanceOf(LecternError)
    expect(err.message).toBe(`Cannot reach the embedding server at ${host} for model "m" (ECONNREFUSED).`)
  })

  it('probes the dimension', async () => {
    const { server } = embeddingsServer((request) => ok(request.body.input, 12))
    expect(await probeEmbedder(new OpenAiEmbedder({ host: await listen(server), model: 'm' }))).toBe(12)
  })
})
