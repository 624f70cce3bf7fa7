/**
 * Reading response bodies within a cap, counted as the bytes flow: on the bytes that arrive and,
 * for a Content-Encoding of gzip, deflate or br, on the bytes they inflate to, so a small
 * compressed body cannot grow into gigabytes in memory (a decompression bomb). Reading stops,
 * and the connection is dropped, at the first byte over the cap.
 */
import { Transform, Writable, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'

export class BodyTooLargeError extends Error {
  constructor(
    readonly limit: number,
    /** Over the cap once inflated, not as received. */
    readonly inflated: boolean,
  ) {
    super(inflated ? `the response is over ${formatLimit(limit)} decompressed` : `the body is over the ${limit}-byte limit`)
  }
}

export class BodyDecodeError extends Error {
  constructor(cause: unknown) {
    super('the body could not be decompressed', { cause })
  }
}

/** `10 MB` for whole mebibytes and above, else bytes: the form people set caps in. */
export function formatLimit(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Number((bytes / (1024 * 1024)).toFixed(1))} MB` : `${bytes} bytes`
}

function decoder(encoding: string | undefined): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip()
    case 'deflate':
      return zlib.createInflate()
    case 'br':
      return zlib.createBrotliDecompress()
    default:
      return undefined
  }
}

function counter(limit: number, inflated: boolean, onChunk?: (chunk: Buffer) => void): Transform {
  let size = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length
      if (size > limit) return callback(new BodyTooLargeError(limit, inflated))
      onChunk?.(chunk)
      callback(null, chunk)
    },
  })
}

/**
 * The whole body, decoded. Throws BodyTooLargeError past `maxBytes` (received or inflated),
 * BodyDecodeError for a body that is not what its Content-Encoding says, and the stream's own
 * error when the transfer fails.
 */
export async function readBody(body: Readable, contentEncoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  const collect = (chunk: Buffer) => void chunks.push(chunk)
  const decode = decoder(contentEncoding)
  const stages = decode ? [counter(maxBytes, false), decode, counter(maxBytes, true, collect)] : [counter(maxBytes, false, collect)]
  // A failure spreads to every stage of the pipeline; the stage that reports it first is where it arose.
  let origin: Readable | Transform | undefined
  for (const stage of [body, ...stages]) stage.once('error', () => (origin ??= stage))
  try {
    await pipeline([body, ...stages, new Writable({ write: (_chunk, _encoding, callback) => callback() })])
  } catch (err) {
    if (decode && origin === decode) throw new BodyDecodeError(err)
    throw err
  }
  return Buffer.concat(chunks)
}

/**
 * A web stream (a fetch body) passed through as long as it stays within `maxBytes`; past that it
 * errors with `tooLarge()` and the source is cancelled. fetch has already inflated the bytes.
 */
export function capStream(stream: ReadableStream<Uint8Array>, maxBytes: number, tooLarge: () => Error): ReadableStream<Uint8Array> {
  let size = 0
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength
        if (size > maxBytes) controller.error(tooLarge())
        else controller.enqueue(chunk)
      },
    }),
  )
}
