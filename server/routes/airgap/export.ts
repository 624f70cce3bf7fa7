/**
 * Export, cloud mode only. `POST /v1/enterprise/export`: one public library as the import
 * payload, authorised by an enterprise license key (`lctl_...`), not an API key. The auth plugin
 * leaves this route's bearer token alone (route config `licenseKeyAuth`), and the check happens
 * here. For the dashboard (admin session): `GET /libraries/exportable` lists what can be
 * exported, `POST /libraries/export` answers the `lectern-libraries.zip` of up to 50 of them.
 */
import type { FastifyInstance } from 'fastify'
import { ANONYMOUS } from '../../../src/library/access.js'
import { BUNDLE_FORMAT, bundleStream, MAX_EXPORT_LIBRARIES } from '../../../src/airgap/bundle.js'
import { exportableLibraries, exportLibraries, exportLibrary } from '../../../src/airgap/export.js'
import { LecternError } from '../../../src/errors.js'
import { verifyLicenseKey } from '../../../src/license/issue.js'
import { bearerToken } from '../../plugins/auth.js'

const ExportBody = {
  type: 'object',
  required: ['library'],
  properties: { library: { type: 'string', minLength: 1, maxLength: 500 } },
} as const

const LIBRARY_ID = { type: 'string', minLength: 1, maxLength: 500 } as const

const BundleBody = {
  type: 'object',
  required: ['libraries'],
  additionalProperties: false,
  properties: { libraries: { type: 'array', minItems: 1, maxItems: MAX_EXPORT_LIBRARIES, uniqueItems: true, items: LIBRARY_ID } },
} as const

/** The picker shows this many matches at most; a search narrows the rest. */
const PICKER_LIMIT = 100

const ExportableQuery = {
  type: 'object',
  properties: { q: { type: 'string', maxLength: 200, default: '' } },
} as const

export default async function exportRoute(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { library: string } }>(
    '/v1/enterprise/export',
    {
      config: { licenseKeyAuth: true },
      schema: { body: ExportBody },
      onRequest: async (request) => {
        const token = bearerToken(request.headers.authorization)
        if (token === undefined) throw new LecternError('invalid_api_key', 'Export needs "Authorization: Bearer <LICENSE_KEY>" (an enterprise license key).')
        await verifyLicenseKey(app.runtime.store, token)
      },
    },
    // A license key is no key of this install: to its holder, private libraries do not exist.
    async (request) => ({ libraries: [await exportLibrary(app.runtime.store, request.body.library, ANONYMOUS)] }),
  )

  const admin = { access: 'admin' as const }

  app.get<{ Querystring: { q: string } }>('/libraries/exportable', { config: admin, schema: { querystring: ExportableQuery } }, async (request) => ({
    ...await exportableLibraries(app.runtime.catalogue, request.query.q, PICKER_LIMIT),
    max: MAX_EXPORT_LIBRARIES,
  }))

  app.post<{ Body: { libraries: string[] } }>('/libraries/export', { config: admin, schema: { body: BundleBody } }, async (request, reply) => {
    const { stream } = bundleStream(await exportLibraries(app.runtime.store, request.body.libraries, request.caller))
    return reply.type('application/zip').header('content-disposition', `attachment; filename="${BUNDLE_FORMAT}.zip"`).send(stream)
  })
}
