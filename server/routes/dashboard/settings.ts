/**
 * The dashboard's Settings page (admin session): whether /mcp needs a key, the rate limits this
 * server runs with (start-up settings, read only here), and on-premise the offline license:
 * its state, and installing one. The embedding provider has its own routes (airgap/settings.ts).
 */
import { audit } from '../../../src/audit/log.js'
import { auditContext } from '../../audit-context.js'
import type { FastifyInstance } from 'fastify'
import { installLicense, licenseFacts, licenseStatus } from '../../../src/license/state.js'
import { readSetting, SETTINGS } from '../../../src/settings.js'

const McpBody = {
  type: 'object',
  required: ['requireKey'],
  additionalProperties: false,
  properties: { requireKey: { type: 'boolean' } },
} as const

const LicenseBody = {
  type: 'object',
  required: ['license'],
  additionalProperties: false,
  // A license file is a small signed JSON document.
  properties: { license: { type: 'string', minLength: 1, maxLength: 64 * 1024 } },
} as const

export default async function settings(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const { config } = app.lecternOptions
  const admin = { access: 'admin' as const }

  app.get('/settings', { config: admin }, async () => ({
    mode: config.mode,
    mcp: { requireKey: await readSetting(store.settings, 'mcp.requireKey') },
    rateLimit: config.rateLimit,
    ...(config.mode === 'onprem' ? { license: await licenseStatus(app.runtime) } : {}),
  }))

  app.put<{ Body: { requireKey: boolean } }>('/settings/mcp', { config: admin, schema: { body: McpBody } }, async (request) => {
    await store.settings.set(SETTINGS['mcp.requireKey'].key, request.body.requireKey)
    await audit(store, await auditContext(request, store.users), 'settings.changed', 'mcp.requireKey', { value: request.body.requireKey })
    return { requireKey: await readSetting(store.settings, 'mcp.requireKey') }
  })

  if (config.mode === 'onprem') {
    app.put<{ Body: { license: string } }>('/license', { config: admin, schema: { body: LicenseBody } }, async (request) => {
      const license = await installLicense(app.runtime, request.body.license)
      await audit(store, await auditContext(request, store.users), 'settings.changed', 'license', licenseFacts(license))
      return await licenseStatus(app.runtime)
    })
  }
}
