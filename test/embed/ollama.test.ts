import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { OllamaEmbedder } from '../../src/embed/ollama.js'
import { probeEmbedder } from '../../src/embed/index.js'
import { LecternError } from '../../src/errors.js'
import { ollamaStandIn } from '../helpers/ollama.js'

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

describe('OllamaEmbedder against a loopback server speaking Ollama\'s /api/embed (Ollama cannot run here)', () => {
  it('batches texts, keeps their order and learns the dimension', async () => {
    const { server, calls } = ollamaStandIn({ models: { 'nomic-embed-text': 8 } })
    const host = await listen(server)
    const e = new OllamaEmbedder({ host, batchSize: 2 })
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee']
    const vectors = await e.embed(texts)
    expect(calls.map((c) => c.input)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']])
    expect(calls.every((c) => c.model === 'nomic-embed-text')).toBe(true)
    expect(vectors).toHaveLength(5)
    expect(vectors.map((v) => v[0])).toEqual(texts.map((t) => Math.fround(t.length / 100)))
    expect(await e.dimensions()).toBe(8)
    expect(calls).toHaveLength(3)
  })

  it('probes the dimension when asked before any embedding', async () => {
    const { server, calls } = ollamaStandIn({ models: { 'all-minilm': 6 } })
    const e = new OllamaEmbedder({ host: await listen(server), model: 'all-minilm' })
    expect(await probeEmbedder(e)).toBe(6)
    expect(calls[0].model).toBe('all-minilm')
  })

  it('takes the host from OLLAMA_HOST when settings give none', async () => {
    const { server, calls } = ollamaStandIn({ models: { 'nomic-embed-text': 4 } })
    const host = await listen(server)
    const saved = process.env.OLLAMA_HOST
    process.env.OLLAMA_HOST = host
    try {
      const e = new OllamaEmbedder()
      expect(e.host).toBe(host)
      await e.embed(['x'])
      expect(calls).toHaveLength(1)
    } finally {
      if (saved === undefined) delete process.env.OLLAMA_HOST
      else process.env.OLLAMA_HOST = saved
    }
  })

  it('rejects a vector of the wrong length in a later batch', async () => {
    const { server } = ollamaStandIn({ models: { m: 8 }, vectorLength: (call) => (call === 1 ? 7 : 8) })
    const host = await listen(server)
    const e = new OllamaEmbedder({ host, model: 'm', batchSize: 1 })
    const err = await e.embed(['one', 'two']).catch((x: unknown) => x)
    expect(err).toBeInstanceOf(LecternError)
    expect((err as LecternError).code).toBe('internal_error')
    expect((err as LecternError).message).toContain('returned a vector of 7 dimensions, expected 8')
    expect((err as LecternError).message).toContain(host)
    expect((err as LecternError).message).toContain('"m"')
  })

  it('rejects vectors of different lengths within the first batch', async () => {
    const { server } = ollamaStandIn({ models: { m: 8 }, vectorLength: (_call, item) => 8 - item })
    const e = new OllamaEmbedder({ host: await listen(server), model: 'm' })
    await expect(e.embed(['one', 'two'])).rejects.toThrow('returned a vector of 7 dimensions, expected 8')
  })

  it('names host and model when the model is unknown', async () => {
    const { server } = ollamaStandIn({ models: { 'nomic-embed-text': 8 } })
    const host = await listen(server)
    const e = new OllamaEmbedder({ host, model: 'no-such-model' })
    const err = (await e.embed(['x']).catch((x: unknown) => x)) as LecternError
    expect(err).toBeInstanceOf(LecternError)
    expect(err.message).toContain(`Ollama at ${host} with model "no-such-model"`)
    expect(err.message).toContain('model "no-such-model" not found, try pulling it first')
    expect(err.message).toContain('ollama pull no-such-model')
  })

  it('names host and model when the host is unreachable', async () => {
    const { server } = ollamaStandIn({ models: {} })
    const host = await listen(server)
    await close(server)
    const e = new OllamaEmbedder({ host, model: 'nomic-embed-text' })
    const err = (await e.embed(['x']).catch((x: unknown) => x)) as LecternError
    expect(err).toBeInstanceOf(LecternError)
    expect(err.message).toContain(`Cannot reach Ollama at ${host} for model "nomic-embed-text" (ECONNREFUSED)`)
  })

  it('rejects credentials in the host without echoing them', () => {
    const build = () => new OllamaEmbedder({ host: 'http://user:secret@127.0.0.1:11434', model: 'x' })
    expect(build).toThrow(LecternError)
    expect(build).toThrow('http://***@127.0.0.1:11434 carries credentials')
    expect(build).not.toThrow(/secret/)
  })

  it('cancels a request in flight with the caller\'s reason', async () => {
    const server = createServer(() => {
      // Never answers: only the abort can end the request.
    })
    const e = new OllamaEmbedder({ host: await listen(server), model: 'm' })
    const controller = new AbortController()
    const pending = e.embed(['x'], controller.signal)
    setTimeout(() => controller.abort(new Error('cancelled by test')), 50)
    await expect(pending).rejects.toThrow('cancelled by test')
  })
})
