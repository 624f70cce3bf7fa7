/**
 * `POST /api/import-libraries` (on-premise only, spec 4.2): a JSON payload or a multipart
 * bundle in `bundleFile`, from a personal API key or an admin session, on an install with a
 * valid offline license. Key and license are checked in onRequest, before a byte of the body
 * is read; the 100 MB cap is enforced while the body streams in (importBody counts JSON bytes as
 * they arrive, multipart's fileSize counts the file), and either goes to a temporary file, never
 * into memory whole.
 */
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { importBundle, importPayload, importsDir, MAX_IMPORT_BYTES, type ImportResult } from '../../../src/airgap/import.js'
import { LecternError } from '../../../src/errors.js'
import { licenseStatus, requireOfflineLicense } from '../../../src/license/state.js'
import { forEachPart, registerUploads, type UploadLimits } from '../../uploads.js'

const tooLarge = () => new LecternError('payload_too_large', `An import is at most ${MAX_IMPORT_BYTES / (1024 * 1024)} MB; split the libraries over several bundles.`)
const LIMITS: UploadLimits = { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 5, fieldSize: 1024 }

export default async function importRoute(app: FastifyInstance): Promise<void> {
  const status = await licenseStatus(app.runtime)
  if (status.state === 'invalid' || status.state === 'expired') app.log.error({ license: status.reason }, 'the installed license is not valid; import is disabled')

  // Only in this plugin: a bundle comes as multipart, and the JSON body stays a stream, which the
  // route writes to a file for importPayload to read a snippet at a time, as UTF-8 only. Every
  // other parser goes: Fastify's would hold a body whole, and its text/plain one would let bad
  // bytes in as U+FFFD.
  app.removeAllContentTypeParsers()
  await registerUploads(app, LIMITS)
  app.addContentTypeParser('application/json', (request, body, done) => {
    if (Number(request.headers['content-length']) > MAX_IMPORT_BYTES) done(tooLarge())
    else done(null, body)
  })

  app.post<{ Querystring: { force?: string } }>(
    '/import-libraries',
    {
      config: { uploadLimits: LIMITS },
      onRequest: async (request) => {
        if (request.user?.role !== 'admin') await app.requireApiKey(request)
        await requireOfflineLicense(app.runtime, 'Library import')
      },
    },
    async (request, reply) => {
      const force = request.query.force === 'true'
      const result = request.isMultipart() ? await importUpload(app, request, force) : await importBody(app, request.body as Readable | undefined, force)
      app.runtime.worker.wake()
      return reply.code(202).send(answer(result))
    },
  )
}

const answer = ({ message, queued, skipped }: ImportResult) => ({ message, queued, skipped })

/** A file beside the request directories for a body or bundle being received (sweepImportStaging removes one a crash left). */
function receivingFile(app: FastifyInstance, extension: string): string {
  const dir = importsDir(app.runtime.store)
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  return path.join(dir, `upload-${randomUUID()}.${extension}`)
}

/**
 * Writes the JSON body to a file, at most MAX_IMPORT_BYTES of it, and imports it from there. Past
 * the cap the rest is read and dropped, as Fastify's own body limit does, so that the client gets
 * the 413 instead of a connection reset.
 */
async function importBody(app: FastifyInstance, body: Readable | undefined, force: boolean): Promise<ImportResult> {
  if (!body) throw new LecternError('validation_error', 'Send the export payload as application/json, or a bundle as multipart/form-data in a "bundleFile" part.')
  const file = receivingFile(app, 'json')
  try {
    const out = await fsp.open(file, 'w', 0o600)
    let size = 0
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        size += chunk.length
        if (size <= MAX_IMPORT_BYTES) await out.write(chunk)
      }
    } finally {
      await out.close()
    }
    if (size > MAX_IMPORT_BYTES) throw tooLarge()
    return await importPayload(app.runtime.store, file, 'The body', force)
  } finally {
    fs.rmSync(file, { force: true })
  }
}

async function importUpload(app: FastifyInstance, request: FastifyRequest, queryForce: boolean): Promise<ImportResult> {
  const upload = receivingFile(app, 'zip')
  let force = queryForce
  let received = false
  try {
    await forEachPart(request, async (part) => {
      if (part.type === 'file') {
        if (part.fieldname !== 'bundleFile') throw new LecternError('validation_error', `Unexpected file field "${part.fieldname}"; send the bundle as "bundleFile".`)
        try {
          await saveTo(part.file, upload)
        } catch (err) {
          if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge()
          throw err
        }
        if (part.file.truncated) throw tooLarge()
        received = true
      } else if (part.fieldname === 'force') {
        force = force || String(part.value) === 'true'
      }
    })
    if (!received) throw new LecternError('validation_error', 'Send the bundle as multipart/form-data in a "bundleFile" part.')
    return await importBundle(app.runtime.store, upload, force)
  } finally {
    fs.rmSync(upload, { force: true })
  }
}

/**
 * Writes an uploaded file part to `file`. Read by async iteration, as multipart's own toBuffer
 * does: a part that the request cut short then fails at once, where a pipe from it waited for
 * an end that never came, until the request timed out.
 */
async function saveTo(part: AsyncIterable<Buffer>, file: string): Promise<void> {
  const out = await fsp.open(file, 'w', 0o600)
  try {
    for await (const chunk of part) await out.write(chunk)
  } finally {
    await out.close()
  }
}
