/**
 * Decompression bombs: a few megabytes of gzip, deflate or brotli that inflate to a gigabyte of
 * zeros, made by streaming the zeros through the compressor, so making one costs no memory.
 */
import zlib from 'node:zlib'

export const BOMB_INFLATED_BYTES = 1024 * 1024 * 1024

export type BombEncoding = 'gzip' | 'deflate' | 'br'

const compressor: Record<BombEncoding, () => zlib.Gzip | zlib.Deflate | zlib.BrotliCompress> = {
  gzip: () => zlib.createGzip({ level: 1 }),
  deflate: () => zlib.createDeflate({ level: 1 }),
  br: () => zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }),
}

export async function makeBomb(encoding: BombEncoding): Promise<Buffer> {
  const stream = compressor[encoding]()
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  const ended = new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject))
  const zeros = Buffer.alloc(1024 * 1024)
  for (let written = 0; written < BOMB_INFLATED_BYTES; written += zeros.length) {
    if (!stream.write(zeros)) await new Promise((resolve) => stream.once('drain', resolve))
  }
  stream.end()
  await ended
  return Buffer.concat(chunks)
}
