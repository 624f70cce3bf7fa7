/**
 * Adding an OpenAPI spec: by URL (`POST /v2/add/openapi`) or as an uploaded file
 * (`POST /v2/add/openapi-upload`, multipart). Library IDs follow the rule in
 * src/jobs/submit-openapi.ts: `/docs/<host-path>` by URL, `/docs/<title or file name>` by upload.
 */
import type { MultipartFile } from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { LecternError } from '../../../src/errors.js'
import { submitOpenApiUpload, submitOpenApiUrl, type OpenApiUpload } from '../../../src/jobs/submit-openapi.js'
import { UPLOAD_MAX_BYTES } from '../../../src/sources/uploads.js'
import { AddOpenApiBody, type AddOpenApiBodyType } from '../../schemas/libraries.js'
import { addAnswer, submitterOf } from '../../submitter.js'
import { forEachPart, registerUploads, type UploadLimits } from '../../uploads.js'

const FIELDS = ['libraryTitle', 'description', 'force'] as const
const LIMITS: UploadLimits = { fileSize: UPLOAD_MAX_BYTES, files: 1, fields: 10, fieldSize: 64 * 1024 }

export default async function addOpenApi(app: FastifyInstance): Promise<void> {
  // One byte over the cap is enough to tell a too-big file; the rest is never buffered.
  await registerUploads(app, LIMITS)

  app.post<{ Body: AddOpenApiBodyType }>('/v2/add/openapi', { schema: { body: AddOpenApiBody }, config: { access: 'apiKey' } }, async (request) => {
    const submitted = await submitOpenApiUrl(app.runtime.store, { url: request.body.openApiUrl }, submitterOf(app, request))
    app.runtime.worker.wake()
    return await addAnswer(app, request, submitted)
  })

  app.post('/v2/add/openapi-upload', { config: { access: 'apiKey', uploadLimits: LIMITS } }, async (request) => {
    const submitted = await submitOpenApiUpload(app.runtime.store, await readUpload(request), submitterOf(app, request))
    app.runtime.worker.wake()
    return await addAnswer(app, request, submitted)
  })
}

/** The multipart parts in any order: the file (required) and the optional text fields. */
async function readUpload(request: FastifyRequest): Promise<OpenApiUpload> {
  if (!request.isMultipart()) throw new LecternError('validation_error', 'Send the spec as multipart/form-data with an "openapiFile" part.')
  const fields: Partial<Record<(typeof FIELDS)[number], string>> = {}
  let file: { data: Buffer; fileName: string } | undefined
  await forEachPart(request, async (part) => {
    if (part.type === 'file') {
      if (part.fieldname !== 'openapiFile') throw new LecternError('validation_error', `Unexpected file field "${part.fieldname}"; send the spec as "openapiFile".`)
      file = { data: await bufferOf(part), fileName: part.filename || 'openapi' }
    } else if ((FIELDS as readonly string[]).includes(part.fieldname)) {
      fields[part.fieldname as (typeof FIELDS)[number]] = String(part.value)
    }
  })
  if (!file) throw new LecternError('validation_error', 'The "openapiFile" part is required.')
  if (fields.force !== undefined && fields.force !== 'true') throw new LecternError('validation_error', 'force must be "true" when given.')
  return { ...file, title: fields.libraryTitle?.trim() || undefined, description: fields.description?.trim() || undefined, force: fields.force === 'true' }
}

/** The file's bytes; over the cap is 413 payload_too_large in the spec's body, not multipart's own. */
async function bufferOf(part: MultipartFile): Promise<Buffer> {
  try {
    return await part.toBuffer()
  } catch (err) {
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new LecternError('payload_too_large', `The OpenAPI file is over the ${UPLOAD_MAX_BYTES / (1024 * 1024)} MB limit.`)
    }
    throw err
  }
}
