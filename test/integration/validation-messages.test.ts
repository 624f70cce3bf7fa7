/**
 * Schema refusals name what is allowed (server/plugins/errors.ts): an enum's values, a bound with
 * the parameter named plainly, the fields an object that needs one may set. Through the HTTP
 * API, as a client meets them.
 */
import { describe, expect, it } from 'vitest'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { signIn } from '../helpers/session.js'
import { bearer, createTenants } from '../helpers/tenants.js'

describe('validation messages', () => {
  it('name the allowed values, the parameter and its bound (on-premise)', async () => {
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/acme/billing', { 'docs/deploy.md': '# Billing\n\n## Deploy\n\nDeploy the billing service with the deploy script.\n\n```bash\n./deploy.sh v1\n```\n' })
    const admin = { cookie: `lectern_session=${(await signIn(app, 'admin')).lectern_session}` }

    const role = await app.inject({ method: 'PUT', url: '/api/libraries/acme/billing/access', headers: admin, payload: { access: 'nobody' } })
    expect(role.statusCode).toBe(400)
    expect(role.json()).toEqual({ error: 'validation_error', message: 'Field access must be one of: "default", "everyone", "restricted".' })

    const days = await app.inject({ url: '/api/v2/libs/metrics?libraryId=/acme/billing&days=0', headers: bearer(await createKey(app)) })
    expect(days.json()).toMatchObject({ error: 'validation_error', message: expect.stringMatching(/^Query parameter days must be at least 1\.$/) })
    const limit = await app.inject({ url: '/api/jobs?limit=501', headers: admin })
    expect(limit.json()).toEqual({ error: 'validation_error', message: 'Query parameter limit must be at most 500.' })
  })

  it('say which fields an empty update may set (cloud policies)', async () => {
    const app = await buildTestApp({ mode: 'cloud', startWorker: false })
    const tenants = await createTenants(app)
    const empty = await app.inject({ method: 'PATCH', url: '/api/v2/policies', headers: bearer(tenants.acme.keys.owner), payload: {} })
    expect(empty.statusCode).toBe(400)
    expect(empty.json().message).toMatch(/^The body must set at least one field of: sourceTypes, .*libraryFilters/)
  })
})
