/**
 * The dashboard's library endpoints with an admin session, on real data: the paged list with
 * each library's state, progress, failure, versions and refresh refusal; one library; rename
 * (the old ID keeps redirecting); remove (the ID is free again, the library stops answering and
 * the server's caches drop it at once); queueing and removing a version of a real git library.
 */
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { addRepo, buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { git, makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { signIn } from '../helpers/session.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { testClaimer, heldByTest } from '../helpers/jobs.js'

const page = (topic: string) => ({
  'docs/guide.md': `# ${topic}\n\n## Start the ${topic}\n\nStart the ${topic} with the start function.\n\n\`\`\`js\n${topic}.start({ retries: 3 })\n\`\`\`\n`,
})

type Cookies = { lectern_session: string }

describe('listing libraries', () => {
  const defer = suiteTeardown()
  let app: FastifyInstance
  let admin: Cookies

  beforeAll(async () => {
    // No worker: queued jobs stay queued, and a test claims one to see it running.
    app = await buildTestApp({ defer, startWorker: false })
    const { store } = app.runtime
    await seedLibrary(app, '/acme/widgets', page('widget'))
    await seedLibrary(app, '/acme/widgets', page('legacy widget'), 'v1.0.0')
    await store.libraries.update((await store.libraries.byId('/acme/widgets'))!.pk, { title: 'Acme Widgets', description: 'Widgets for everyone.' })
    await seedLibrary(app, '/acme/gadgets', page('gadget'))
    const secret = await store.libraries.create({ id: '/acme/secret', title: 'secret', sourceKind: 'github', sourceUrl: 'https://github.com/acme/secret', isPrivate: true })
    const failed = await store.libraries.create({ id: '/zeta/broken', title: 'broken', sourceKind: 'github', sourceUrl: 'https://github.com/zeta/broken' })
    await store.libraries.setVersionState(failed.version.pk, 'error', {
      code: 'source_unreachable',
      message: 'git clone failed: fatal: could not read from https://x-access-token:ghp_s3cr3t@github.com/zeta/broken',
    })
    await store.libraries.create({ id: '/llmstxt/imported', title: 'imported', sourceKind: 'import', sourceUrl: '', isImported: true })
    await store.jobs.enqueue({ kind: 'ingest', libraryPk: secret.library.pk, versionPk: secret.version.pk })
    admin = await signIn(app)
  })

  const list = async (query = '') => {
    const res = await app.inject({ url: `/api/libraries${query}`, cookies: admin })
    expect(res.statusCode, res.body).toBe(200)
    return res.json()
  }

  it('lists every library by ID with state, sizes, versions and badges, and a finalized one in full', async () => {
    const body = await list()
    expect(body).toMatchObject({ total: 5, page: 1, pageSize: 25 })
    expect(body.libraries.map((l: { id: string }) => l.id)).toEqual(['/acme/gadgets', '/acme/secret', '/acme/widgets', '/llmstxt/imported', '/zeta/broken'])
    const widgets = body.libraries[2]
    const { store } = app.runtime
    const main = (await store.libraries.version((await store.libraries.byId('/acme/widgets'))!.pk, ''))!
    const tag = (await store.libraries.version((await store.libraries.byId('/acme/widgets'))!.pk, 'v1.0.0'))!
    expect(main.totalSnippets).toBeGreaterThan(0)
    expect(widgets).toEqual({
      id: '/acme/widgets',
      title: 'Acme Widgets',
      description: 'Widgets for everyone.',
      sourceKind: 'github',
      sourceUrl: 'https://github.com/acme/widgets',
      private: false,
      team: null,
      imported: false,
      state: 'finalized',
      progress: null,
      errorCode: null,
      errorMessage: null,
      snippets: main.totalSnippets,
      tokens: main.totalTokens,
      updatedAt: main.updatedAt,
      versions: [{ tag: 'v1.0.0', state: 'finalized', snippets: tag.totalSnippets, tokens: tag.totalTokens, updatedAt: tag.updatedAt }],
      refreshable: true,
      refreshBlockedReason: null,
    })
  })

  it('agrees with search on state, sizes and versions', async () => {
    const rows = (await list()).libraries
    for (const row of rows.filter((r: { private: boolean }) => !r.private)) {
      const res = await app.inject({ url: '/api/v2/libs/search', query: { libraryName: row.id }, cookies: admin })
      const found = res.json().results.find((r: { id: string }) => r.id === row.id)
      expect(found, row.id).toMatchObject({ state: row.state, totalSnippets: row.snippets, totalTokens: row.tokens, lastUpdateDate: row.updatedAt, versions: row.versions.map((v: { tag: string }) => v.tag) })
    }
  })

  it('shows a private library to the admin, queued while its job waits and processing with progress while it runs', async () => {
    const { store } = app.runtime
    const secret = (await list('?q=secret')).libraries[0]
    expect(secret).toMatchObject({ id: '/acme/secret', private: true, team: null, state: 'queued', progress: null, refreshable: false })
    expect(secret.refreshBlockedReason).toMatch(/^Library \/acme\/secret is being processed \(job \d+, queued\)/)
    const job = (await store.jobs.claimNext(testClaimer))!
    await store.jobs.setStatus(job.pk, 'embedding 40 of 120 snippets')
    try {
      expect((await list('?q=secret')).libraries[0]).toMatchObject({ state: 'processing', progress: 'embedding 40 of 120 snippets', refreshable: false })
    } finally {
      await store.jobs.fail(heldByTest(job.pk), 'internal_error', 'test over')
    }
  })

  it('says why a library failed, with credentials redacted', async () => {
    const body = await list('?q=broken')
    expect(body.libraries[0]).toMatchObject({ state: 'error', errorCode: 'source_unreachable', errorMessage: expect.stringContaining('could not read from'), refreshable: true })
    expect(JSON.stringify(body)).not.toContain('ghp_s3cr3t')
  })

  it('marks an imported library and gives the reason refresh refuses it with', async () => {
    const imported = (await list('?q=imported')).libraries[0]
    expect(imported).toMatchObject({ imported: true, refreshable: false })
    const refresh = await app.inject({
      method: 'POST',
      url: '/api/v1/refresh',
      headers: { authorization: `Bearer ${await createKey(app)}` },
      payload: { libraryName: '/llmstxt/imported' },
    })
    expect(refresh.statusCode).toBe(403)
    expect(imported.refreshBlockedReason).toBe(refresh.json().message)
  })

  it('filters by ID or title, case-insensitively, and pages', async () => {
    expect((await list('?q=WIDGETS')).libraries.map((l: { id: string }) => l.id)).toEqual(['/acme/widgets'])
    // "everyone" is only in a description: descriptions are not matched.
    expect(await list('?q=everyone')).toEqual({ libraries: [], total: 0, page: 1, pageSize: 25 })
    expect((await list('?q=%2Facme%2F')).total).toBe(3)
    const second = await list('?pageSize=2&page=2')
    expect(second).toMatchObject({ total: 5, page: 2, pageSize: 2 })
    expect(second.libraries.map((l: { id: string }) => l.id)).toEqual(['/acme/widgets', '/llmstxt/imported'])
    expect(await list('?pageSize=2&page=4')).toEqual({ libraries: [], total: 5, page: 4, pageSize: 2 })
  })

  it('answers one library as its row in the list, and 404 library_not_found for an unknown one', async () => {
    const rows = (await list()).libraries
    for (const row of rows) {
      const res = await app.inject({ url: `/api/libraries${row.id}`, cookies: admin })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual(row)
    }
    const unknown = await app.inject({ url: '/api/libraries/acme/nothing', cookies: admin })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).toEqual({ error: 'library_not_found', message: expect.stringContaining('/acme/nothing') })
  })
})

describe('listing libraries in the cloud', () => {
  it('names the teamspace whose private library it is, and none for the operator\'s own', async () => {
    const app = await buildTestApp({ mode: 'cloud', startWorker: false })
    const { store } = app.runtime
    const owner = await store.users.create({ email: 'owner@acme.example', password: 'correct horse battery staple', role: 'member' })
    const acme = await store.teams.create({ name: 'Acme Docs', ownerUserId: owner.id, plan: 'pro' })
    await store.libraries.create({ id: '/acme/billing', title: 'billing', sourceKind: 'github', sourceUrl: 'https://github.com/acme/billing', isPrivate: true, teamPk: acme.id })
    await store.libraries.create({ id: '/ops/runbook', title: 'runbook', sourceKind: 'github', sourceUrl: 'https://github.com/ops/runbook', isPrivate: true })
    const admin = await signIn(app)
    const rows = (await app.inject({ url: '/api/libraries', cookies: admin })).json().libraries
    expect(rows.map((r: { id: string; private: boolean; team: string | null }) => [r.id, r.private, r.team])).toEqual([
      ['/acme/billing', true, 'Acme Docs'],
      ['/ops/runbook', true, null],
    ])
    const one = await app.inject({ url: '/api/libraries/acme/billing', cookies: admin })
    expect(one.json().team).toBe('Acme Docs')
  })
})

describe('renaming and removing libraries', () => {
  const forgotten: number[] = []
  let app: FastifyInstance
  let admin: Cookies

  // At suite level: a teardown registered inside beforeAll would never run.

  const defer = suiteTeardown()

  beforeAll(async () => {
    app = await buildTestApp({ defer, startWorker: false, onSetForgotten: (setPk) => forgotten.push(setPk) })
    admin = await signIn(app)
  })

  const context = (libraryId: string) => app.inject({ url: '/api/v2/context', query: { libraryId, query: 'start', type: 'json' } })
  const rename = (from: string, to: string) => app.inject({ method: 'PATCH', url: `/api/libraries${from}`, cookies: admin, payload: { id: to } })
  const remove = (id: string) => app.inject({ method: 'DELETE', url: `/api/libraries${id}`, cookies: admin })

  it('renames a library; the old ID keeps redirecting', async () => {
    await seedLibrary(app, '/acme/widgets', page('widget'))
    const res = await rename('/acme/widgets', '/acme/widgets-core')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ id: '/acme/widgets-core', state: 'finalized', title: 'widgets' })
    const old = await context('/acme/widgets')
    expect(old.statusCode).toBe(301)
    expect(old.json()).toMatchObject({ error: 'library_redirected', redirectUrl: '/acme/widgets-core' })
    expect((await context('/acme/widgets-core')).statusCode).toBe(200)
    const oldRow = await app.inject({ url: '/api/libraries/acme/widgets', cookies: admin })
    expect(oldRow.statusCode).toBe(301)
    expect(oldRow.json()).toMatchObject({ redirectUrl: '/acme/widgets-core' })
    // Adding its source again would index it twice: refused, naming where it lives now.
    const again = await addRepo(app, await createKey(app), 'https://github.com/acme/widgets')
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ error: 'library_exists', message: expect.stringContaining('already indexed as /acme/widgets-core') })
    expect(await app.runtime.store.libraries.byId('/acme/widgets')).toBeUndefined()
  })

  it('refuses a rename onto an existing ID (409 library_exists) or from an unknown one (404), changing nothing', async () => {
    await seedLibrary(app, '/acme/taken', page('taken'))
    const taken = await rename('/acme/widgets-core', '/acme/taken')
    expect(taken.statusCode).toBe(409)
    expect(taken.json()).toEqual({ error: 'library_exists', message: 'Library /acme/taken already exists.' })
    const unknown = await rename('/acme/nothing', '/acme/something')
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().error).toBe('library_not_found')
    expect((await app.runtime.store.libraries.list()).map((l) => l.id)).toEqual(['/acme/taken', '/acme/widgets-core'])
  })

  it('removes a library: it stops answering, its sets leave the cache at once, and its ID is free again', async () => {
    const { setPk } = await seedLibrary(app, '/acme/gone', page('gone'))
    expect((await context('/acme/gone')).statusCode).toBe(200)
    const loaded = app.runtime.retriever.cacheStats().sets
    const res = await remove('/acme/gone')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ removed: '/acme/gone', sets: 1 })
    expect(forgotten).toContain(setPk)
    expect(app.runtime.retriever.cacheStats().sets).toBe(loaded - 1)
    const after = await context('/acme/gone')
    expect(after.statusCode).toBe(404)
    expect(after.json().error).toBe('library_not_found')
    expect((await app.inject({ url: '/api/libraries/acme/gone', cookies: admin })).statusCode).toBe(404)
    expect((await remove('/acme/gone')).statusCode).toBe(404)
    const reused = await rename('/acme/taken', '/acme/gone')
    expect(reused.statusCode, reused.body).toBe(200)
    expect((await context('/acme/gone')).json().codeSnippets[0].codeList[0].code).toContain('taken.start')
  })

  it('refuses to remove a library whose job runs (409 library_busy), and keeps it serving', async () => {
    const { store } = app.runtime
    const library = (await store.libraries.byId('/acme/widgets-core'))!
    const job = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: (await store.libraries.version(library.pk, ''))!.pk })
    expect((await store.jobs.claimNext(testClaimer))?.pk).toBe(job.pk)
    try {
      const res = await remove('/acme/widgets-core')
      expect(res.statusCode).toBe(409)
      expect(res.json()).toEqual({ error: 'library_busy', message: expect.stringContaining(`job ${job.pk}`) })
      expect((await context('/acme/widgets-core')).statusCode).toBe(200)
    } finally {
      await store.jobs.fail(heldByTest(job.pk), 'internal_error', 'test over')
    }
    expect((await remove('/acme/widgets-core')).statusCode).toBe(200)
  })
})

describe('versions', () => {
  const defer = suiteTeardown()
  let app: FastifyInstance
  let admin: Cookies

  beforeAll(async () => {
    const remotes = await tmpDir('lectern-remotes-', defer)
    const lib = await makeGitRepo(page('connect'), { parent: remotes, name: 'lib' })
    await git(['tag', 'v1.0.0'], lib.dir)
    redirectGitHub(remotes, defer)
    // No worker: jobs run when a test drains the queue.
    app = await buildTestApp({ defer, startWorker: false })
    expect((await addRepo(app, await createKey(app), 'https://github.com/acme/lib')).statusCode).toBe(200)
    await app.runtime.worker.drain()
    admin = await signIn(app)
  })

  const context = (libraryId: string) => app.inject({ url: '/api/v2/context', query: { libraryId, query: 'start' } })
  const row = async () => (await app.inject({ url: '/api/libraries/acme/lib', cookies: admin })).json()

  it('queues a tag as `lectern versions add` does, then serves it once its job ran', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/libraries/acme/lib/versions', cookies: admin, payload: { tag: 'v1.0.0' } })
    expect(res.statusCode, res.body).toBe(200)
    const { jobId } = res.json()
    expect(res.json()).toEqual({ libraryName: '/acme/lib@v1.0.0', version: 'v1.0.0', jobId: expect.any(Number) })
    expect((await app.runtime.store.jobs.byPk(jobId))?.state).toBe('queued')
    expect((await row()).versions).toEqual([expect.objectContaining({ tag: 'v1.0.0', state: 'queued' })])
    await app.runtime.worker.drain()
    expect((await row()).versions).toEqual([expect.objectContaining({ tag: 'v1.0.0', state: 'finalized', snippets: expect.any(Number) })])
    expect((await context('/acme/lib@v1.0.0')).statusCode).toBe(200)
  })

  it('refuses a tag the remote lacks with 404 tag_not_found, queueing nothing', async () => {
    const jobs = (await app.runtime.store.jobs.list()).length
    const res = await app.inject({ method: 'POST', url: '/api/libraries/acme/lib/versions', cookies: admin, payload: { tag: 'v9.9.9' } })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: 'tag_not_found', message: expect.stringContaining('v9.9.9') })
    expect(await app.runtime.store.jobs.list()).toHaveLength(jobs)
    expect((await row()).versions.map((v: { tag: string }) => v.tag)).toEqual(['v1.0.0'])
  })

  it('removes a version as `lectern versions remove` does; the default branch keeps serving and cannot be removed this way', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/api/libraries/acme/lib/versions/v1.0.0', cookies: admin })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ removed: '/acme/lib@v1.0.0', tag: 'v1.0.0', sets: 1 })
    expect((await context('/acme/lib@v1.0.0')).json().error).toBe('tag_not_found')
    expect((await context('/acme/lib')).statusCode).toBe(200)
    expect((await row()).versions).toEqual([])
    const again = await app.inject({ method: 'DELETE', url: '/api/libraries/acme/lib/versions/v1.0.0', cookies: admin })
    expect(again.statusCode).toBe(404)
    expect(again.json().error).toBe('tag_not_found')
    const main = await app.inject({ method: 'DELETE', url: '/api/libraries/acme/lib/versions/main', cookies: admin })
    expect(main.statusCode).toBe(400)
    expect(main.json()).toEqual({ error: 'validation_error', message: expect.stringContaining('lectern libraries remove /acme/lib') })
  })
})
