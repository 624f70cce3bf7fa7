/**
 * Decompression bombs against the sources' HTTP client: a loopback server answers with a few MB
 * of gzip, deflate or brotli that inflate to 1 GiB. The fetch fails at the cap on the inflated
 * bytes with a message saying so, and the process's memory stays flat while it does; through
 * the CLI the job fails with that message.
 */
import zlib from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { HttpClient } from '../../src/sources/http.js'
import { BOMB_INFLATED_BYTES, makeBomb, type BombEncoding } from '../helpers/bombs.js'
import { runCli } from '../helpers/cli.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { serveOnLoopback } from '../helpers/loopback-server.js'

const ENCODINGS: BombEncoding[] = ['gzip', 'deflate', 'br']
const bombs = {} as Record<BombEncoding, Buffer>

beforeAll(async () => {
  for (const encoding of ENCODINGS) bombs[encoding] = await makeBomb(encoding)
}, 60_000)

const serve = serveOnLoopback

const serveBomb = (encoding: BombEncoding, contentType = 'text/html') =>
  serve((_req, res) => res.writeHead(200, { 'content-type': contentType, 'content-encoding': encoding }).end(bombs[encoding]))

/** The highest RSS seen while `work` runs, above what it was before. */
async function peakRssGrowth(work: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage().rss
  let peak = before
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
  try {
    await work()
  } finally {
    clearInterval(timer)
  }
  return Math.max(peak, process.memoryUsage().rss) - before
}

describe('a compressed response is capped on its inflated bytes', () => {
  it('the bombs are what they claim: small, and a gigabyte inflated', () => {
    for (const encoding of ENCODINGS) expect(bombs[encoding].length, encoding).toBeLessThan(8 * 1024 * 1024)
    expect(BOMB_INFLATED_BYTES).toBe(1024 ** 3)
  })

  for (const encoding of ENCODINGS) {
    it(`${encoding}: fails at 10 MB decompressed, and RSS grows by less than 100 MB`, async () => {
      const url = await serveBomb(encoding)
      let error: unknown
      const growth = await peakRssGrowth(() => new HttpClient({ retries: 0 }).get(url).catch((err) => (error = err)))
      expect(error).toMatchObject({ code: 'source_unreachable', message: `Fetching ${url}/ failed: the response is over 10 MB decompressed (Content-Encoding: ${encoding})` })
      expect(growth).toBeLessThan(100 * 1024 * 1024)
    })
  }

  it('the cap is the request\'s own, and a body within it is inflated whole', async () => {
    const page = 'x'.repeat(300_000)
    const url = await serve((req, res) => {
      const encoding = req.url!.slice(1) as BombEncoding
      const encode = { gzip: zlib.gzipSync, deflate: zlib.deflateSync, br: zlib.brotliCompressSync }[encoding]
      res.writeHead(200, { 'content-encoding': encoding }).end(encode(page))
    })
    const client = new HttpClient({ retries: 0 })
    for (const encoding of ENCODINGS) {
      expect((await client.get(`${url}/${encoding}`)).text(), encoding).toBe(page)
      await expect(client.get(`${url}/${encoding}`, { maxBytes: 200_000 })).rejects.toThrow(`the response is over 200000 bytes decompressed (Content-Encoding: ${encoding})`)
    }
  })

  it('a body that is not what its Content-Encoding says fails as undecodable', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all'))
    await expect(new HttpClient({ retries: 0 }).get(url)).rejects.toMatchObject({ code: 'source_unreachable', message: expect.stringContaining('could not be decompressed') })
  })

  it('fails the job that fetches it, saying why (lectern add llmstxt --wait)', async () => {
    const url = await serveBomb('gzip', 'text/plain')
    const result = await runCli(['add', 'llmstxt', `${url}/llms.txt`, '--wait', '--data-dir', await tmpDataDir()])
    expect(result.exitCode, result.stderr).toBe(1)
    expect(result.stderr).toContain('the response is over 5 MB decompressed (Content-Encoding: gzip)')
  })
})
