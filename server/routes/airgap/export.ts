/**
 * `POST /v1/enterprise/export` (cloud mode only): one public library as the import payload,
 * authorised by an enterprise license key (`lctl_...`), not an API key. The auth plugin leaves
 * this route's bearer token alone (route config `licenseKeyAuth`), and the check happens here.
 */
import type { FastifyInstance } from 'fastify'
import { ANONYMOUS } from '../../../src/access.js'
import { exportLibrary } from '../../../src/airgap/export.js'
import { LecternError } from '../../../src/errors.js'
import { verifyLicenseKey } from '../../../src/license/issue.js'
import { bearerToken } from '../../plugins/auth.js'

const ExportBody = {
  type: 'object',
  required: ['library'],
  properties: { library: { type: 'string', minLength: 1, maxLength: 500 } },
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
        verifyLicenseKey(app.runtime.store, token)
      },
    },
    // A license key is no key of this install: to its holder, private libraries do not exist.
    async (request) => ({ libraries: [exportLibrary(app.runtime.store, request.body.library, ANONYMOUS)] }),
  )
}
