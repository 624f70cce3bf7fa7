/**
 * Multipart uploads: one place that registers @fastify/multipart with a route's limits and reads
 * its parts. The same limits go into the route's config, so the error handler can name them when
 * multipart refuses a request (too many fields, files or parts; a file over the cap).
 */
import multipart, { type Multipart } from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { isLecternError, LecternError } from '../src/errors.js'

export interface UploadLimits {
  /** Bytes of one file; one more is refused with 413 payload_too_large. */
  fileSize: number
  files: number
  fields: number
  /** Bytes of one text field; a longer value is cut there. */
  fieldSize: number
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The multipart limits of an upload route, named in the error handler's refusals. */
    uploadLimits?: UploadLimits
  }
}

/**
 * Registers multipart in this (encapsulated) plugin; pass the same limits to the route's config.
 * Fields are counted by forEachPart: when busboy stops at its field limit it stops reading the
 * request, and a file part after the fields then never ends. Its own limit, one higher, only
 * backs ours up.
 */
export async function registerUploads(app: FastifyInstance, limits: UploadLimits): Promise<void> {
  await app.register(multipart, { limits: { ...limits, fields: limits.fields + 1 } })
}

/**
 * Hands each part to `handle`, in order, refusing one field over the route's limit with
 * multipart's own error (the error handler words it). When multipart refuses the request while a
 * file waits to be read (fields over the limit after the file), the file stream only says it
 * closed early; the refusal itself waits in the part iterator, so it is taken from there instead.
 * The parser's own errors (no boundary) carry no code, and a file cut short with nothing queued
 * only closed early: both are the client's malformed body, said in our words.
 */
export async function forEachPart(request: FastifyRequest, handle: (part: Multipart) => Promise<void>): Promise<void> {
  const maxFields = request.routeOptions.config?.uploadLimits?.fields ?? Infinity
  try {
    const parts = request.parts()
    let fields = 0
    for await (const part of parts) {
      if (part.type === 'field' && ++fields > maxFields) throw new request.server.multipartErrors.FieldsLimitError()
      try {
        await handle(part)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') await parts.next()
        throw err
      }
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (isLecternError(err) || (code && code !== 'ERR_STREAM_PREMATURE_CLOSE')) throw err
    throw new LecternError('validation_error', 'The upload is not valid multipart/form-data: its boundary is missing or a part is cut short.')
  }
}
