/**
 * The cloud dashboard's export (admin session): `GET /api/libraries/exportable` lists the public,
 * ready libraries, `POST /api/libraries/export` answers the lectern-libraries.zip of 1..50 of
 * them; refusals (no session, a member, bad lists, private or unknown libraries) export nothing.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../src/airgap/bundle.js'
import { buildTestApp } from '../helpers/app.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { seedDocs } from './helpers.js'
import { sqliteOf } from '../../src/store/index.js'

const PASSWORD = 'correct horse battery staple'

async function sessionOf(app: FastifyInstance, email: string, role: 'admin' | 'member'): Promise<string> {
  await app.runtime.store.users.create({ email, password: PASSWORD, role })
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } })
  return /lectern_session=([\w-]+)/.exec(login.headers['set-cookie'] as string)![1]!
}

describe('the cloud dashboard export', () => {
  const defer = suiteTeardown()
  let cloud: FastifyInstance
  let admin: string
  let member: string

  beforeAll(async () => {
    cloud = await buildTestApp({ mode: 'cloud', startWorker: false, defer })
    await seedDocs(cloud, '/acme/widgets')
    await seedDocs(cloud, '/acme/gadgets', 6)
    await seedDocs(cloud, '/acme/secret', 4)
    const { libraries } = cloud.runtime.store
    await libraries.update((await libraries.byId('/acme/secret'))!.pk, { isPrivate: true })
    await libraries.create({ id: '/acme/pending', title: 'pending', sourceKind: 'github', sourceUrl: 'https://github.com/acme/pending' })
    admin = await sessionOf(cloud, 'ops@example.com', 'admin')
    member = await sessionOf(cloud, 'dev@example.com', 'member')
  })

  const exportAs = (session: string | undefined, payload: unknown) =>
    cloud.inject({ method: 'POST', url: '/api/libraries/export', payload: payload as object, ...(session ? { cookies: { lectern_session: session } } : {}) })

  it('needs an admin session: 401 without one, 403 for a member, for both routes', async () => {
    for (const session of [undefined, member]) {
      const listed = await cloud.inject({ url: '/api/libraries/exportable', ...(session ? { cookies: { lectern_session: session } } : {}) })
      const exported = await exportAs(session, { libraries: ['/acme/widgets'] })
      for (const res of [listed, exported]) {
        expect(res.statusCode).toBe(session ? 403 : 401)
        expect(res.json().error).toBe(session ? 'forbidden' : 'not_authenticated')
      }
    }
  })

  it('lists only public, ready libraries, filtered by ID or title', async () => {
    const all = await cloud.inject({ url: '/api/libraries/exportable', cookies: { lectern_session: admin } })
    expect(all.statusCode).toBe(200)
    expect(all.json()).toMatchObject({ total: 2, max: 50 })
    expect(all.json().libraries.map((l: { id: string }) => l.id)).toEqual(['/acme/gadgets', '/acme/widgets'])
    const some = await cloud.inject({ url: '/api/libraries/exportable?q=WIDG', cookies: { lectern_session: admin } })
    expect(some.json().libraries).toEqual([expect.objectContaining({ id: '/acme/widgets', title: 'widgets' })])
  })

  it('answers the zip of the named libraries, in order, with every snippet', async () => {
    const res = await exportAs(admin, { libraries: ['/acme/widgets', '/acme/gadgets'] })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/zip')
    expect(res.headers['content-disposition']).toBe('attachment; filename="lectern-libraries.zip"')
    const file = path.join(await tmpDir(), 'lectern-libraries.zip')
    fs.writeFileSync(file, res.rawPayload)
    const projects: string[] = []
    const manifest = await readBundle(file, path.join(path.dirname(file), 'entries'), (entryFile) => {
      projects.push((JSON.parse(fs.readFileSync(entryFile, 'utf8')) as { project: string }).project)
    })
    expect(projects).toEqual(['/acme/widgets', '/acme/gadgets'])
    const snippets = sqliteOf(cloud.runtime.store).prepare('SELECT count(*) FROM snippets s JOIN library_versions v ON v.current_set = s.set_pk JOIN libraries l ON l.pk = v.library_pk WHERE l.id = ?').pluck()
    expect(manifest.libraries.map((l) => l.codeSnippets + l.infoSnippets)).toEqual([snippets.get('/acme/widgets'), snippets.get('/acme/gadgets')])
  })

  it('refuses with 400 an empty list, 51 libraries, a duplicate, an unknown, a private or a pending library', async () => {
    const fiftyOne = Array.from({ length: 51 }, (_, i) => `/acme/lib${i}`)
    for (const [payload, message] of [
      [{ libraries: [] }, /fewer than 1/],
      [{ libraries: fiftyOne }, /more than 50/],
      [{ libraries: ['/acme/widgets', '/acme/widgets'] }, /duplicate/],
      [{ libraries: ['/acme/widgets', '/acme/nope'] }, /\/acme\/nope.*Nothing was exported/],
      [{ libraries: ['/acme/secret'] }, /\/acme\/secret is private.*Nothing was exported/],
      [{ libraries: ['/acme/pending'] }, /\/acme\/pending is still being processed.*Nothing was exported/],
      [{ library: '/acme/widgets' }, /libraries/],
    ] as const) {
      const res = await exportAs(admin, payload)
      expect(res.statusCode, JSON.stringify(payload).slice(0, 60)).toBe(400)
      expect(res.json().error).toBe('validation_error')
      expect(res.json().message).toMatch(message)
    }
  })

  it('exists only in the cloud: on-premise both routes answer 404', async () => {
    const onprem = await buildTestApp({ startWorker: false, defer })
    const session = await sessionOf(onprem, 'ops@example.com', 'admin')
    const listed = await onprem.inject({ url: '/api/libraries/exportable', cookies: { lectern_session: session } })
    const exported = await onprem.inject({ method: 'POST', url: '/api/libraries/export', payload: { libraries: ['/acme/widgets'] }, cookies: { lectern_session: session } })
    expect([listed.statusCode, exported.statusCode]).toEqual([404, 404])
  })
})
