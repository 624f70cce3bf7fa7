/**
 * The embedders' outbound requests: through HTTP_PROXY to the loopback STAND-INS of Ollama and of
 * an OpenAI-compatible server (a real forward proxy records them), NO_PROXY going direct, the
 * CLI's probe of a new provider taking the same way, and an answer that inflates past the cap
 * (a gzip bomb) failing with a clear error while memory stays flat.
 */
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { OllamaEmbedder } from '../../src/embed/ollama.js'
import { OpenAiEmbedder } from '../../src/embed/openai.js'
import { ollamaStandIn } from '../airgap/ollama-standin.js'
import { makeBomb } from '../helpers/bombs.js'
import { runCli } from '../helpers/cli.js'
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js'
import { setProcessEnv, tmpDataDir } from '../helpers/tmp.js'
import { serveOnLoopback } from '../helpers/loopback-server.js'

const serve = serveOnLoopback

/** An OpenAI-compatible `POST /v1/embeddings` STAND-IN answering 3-dim vectors. */
const openAiStandIn = () =>
  serve((req, res) => {
    let raw = ''
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()))
    req.on('end', () => {
      const { input } = JSON.parse(raw) as { input: string[] }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 0.5, 0.25] })) }))
    })
  })

async function proxied(noProxy = ''): Promise<ForwardProxy> {
  const proxy = await startForwardProxy()
  setProcessEnv({ http_proxy: '', HTTP_PROXY: proxy.url, https_proxy: '', HTTPS_PROXY: '', no_proxy: '', NO_PROXY: noProxy })
  return proxy
}

describe('embedders through the outbound proxy', () => {
  it('Ollama (stand-in) is asked through HTTP_PROXY', async () => {
    const ollama = await ollamaStandIn(4)
    onTestFinished(() => ollama.close())
    const proxy = await proxied()
    const vectors = await new OllamaEmbedder({ host: ollama.url, model: 'nomic-embed-text' }).embed(['one', 'two'])
    expect(vectors).toHaveLength(2)
    expect(proxy.seen).toEqual([`POST ${ollama.url}/api/embed`])
  })

  it('an OpenAI-compatible server (stand-in) is asked through HTTP_PROXY, and directly when NO_PROXY names it', async () => {
    const url = await openAiStandIn()
    let proxy = await proxied()
    expect(await new OpenAiEmbedder({ host: url, model: 'm' }).embed(['abc'])).toEqual([new Float32Array([3, 0.5, 0.25])])
    expect(proxy.seen).toEqual([`POST ${url}/v1/embeddings`])
    proxy = await proxied('127.0.0.1')
    await new OpenAiEmbedder({ host: url, model: 'm' }).embed(['abc'])
    expect(proxy.seen).toEqual([])
  })

  it('lectern config set embedding.provider probes the new provider through the proxy', async () => {
    const ollama = await ollamaStandIn(4)
    onTestFinished(() => ollama.close())
    const proxy = await startForwardProxy()
    const result = await runCli(['config', 'set', 'embedding.provider', 'ollama', '--model', 'nomic-embed-text', '--host', ollama.url, '--data-dir', await tmpDataDir()], {
      http_proxy: '', HTTP_PROXY: proxy.url, no_proxy: '', NO_PROXY: '',
    })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toContain('(4 dimensions)')
    expect(proxy.seen.length).toBeGreaterThan(0)
    expect(new Set(proxy.seen)).toEqual(new Set([`POST ${ollama.url}/api/embed`]))
  })
})

describe('an embedding answer that inflates past the cap', () => {
  let bomb: Buffer
  beforeAll(async () => {
    bomb = await makeBomb('gzip')
  }, 60_000)

  const bombServer = () => serve((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb))
  })

  async function peakRssGrowth(work: () => Promise<unknown>): Promise<number> {
    const before = process.memoryUsage().rss
    let peak = before
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
    await work().finally(() => clearInterval(timer))
    return Math.max(peak, process.memoryUsage().rss) - before
  }

  it('fails the OpenAI-compatible embedder at 32 MB decompressed, RSS growing by less than 100 MB', async () => {
    const url = await bombServer()
    let error: unknown
    const growth = await peakRssGrowth(() => new OpenAiEmbedder({ host: url, model: 'm' }, { retries: 0 }).embed(['x']).catch((err) => (error = err)))
    expect(error).toMatchObject({ code: 'internal_error', message: `Embedding server ${url} with model "m" answered with more than 32 MB decompressed; that is not an embedding response.` })
    expect(growth).toBeLessThan(100 * 1024 * 1024)
  })

  it('fails the Ollama embedder the same way', async () => {
    const url = await bombServer()
    let error: unknown
    const growth = await peakRssGrowth(() => new OllamaEmbedder({ host: url, model: 'm' }).embed(['x']).catch((err) => (error = err)))
    expect(error).toMatchObject({ code: 'internal_error', message: `Ollama at ${url} with model "m" answered with more than 32 MB decompressed; that is not an embedding response.` })
    expect(growth).toBeLessThan(100 * 1024 * 1024)
  })
})
