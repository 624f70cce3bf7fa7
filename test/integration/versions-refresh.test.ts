import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCAL } from '../../src/library/access.js'
import { addVersion, parseAge, refreshStale } from '../../src/jobs/library-jobs.js'
import { addRepo, buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { git, makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { pollUntil } from '../helpers/poll.js'
import { tmpDir } from '../helpers/tmp.js'
import { sqliteOf } from '../../src/store/index.js'

const page = (what: string) => `# Guide\n\n## Connect\n\nConnect to the ${what} server with the connect function and a host name.\n\n\`\`\`js\nconnect('${what}.example.com')\n\`\`\`\n`

/** A repo whose tag v1.0.0 documents the "legacy" API and whose main branch the "modern" one. */
async function versionedRepo(base: string) {
  const repo = await makeGitRepo({ 'README.md': '# Lib\n\nLib connects widgets to servers over a small and friendly API.\n', 'docs/guide.md': page('legacy') }, { parent: base, name: 'lib' })
  await git(['tag', 'v1.0.0'], repo.dir)
  await writeFile(path.join(repo.dir, 'docs/guide.md'), page('modern'))
  await writeFile(path.join(repo.dir, 'context7.json'), JSON.stringify({ previousVersions: [{ tag: 'v1.0.0', title: 'Lib 1.0' }] }))
  await git(['add', '-A'], repo.dir)
  await git(['commit', '-q', '-m', 'modern'], repo.dir)
  return repo
}

const context = async (app: Awaited<ReturnType<typeof buildTestApp>>, libraryId: string) =>
  app.inject({ url: `/api/v2/context?libraryId=${encodeURIComponent(libraryId)}&query=connect to the server` })

async function waitForJobs(app: Awaited<ReturnType<typeof buildTestApp>>) {
  await pollUntil('the job queue to empty', async () => ((await app.runtime.store.jobs.list({ states: ['queued', 'running'] })).length === 0 ? true : undefined), 30_000)
}

describe('library versions', () => {
  it('ingests the previousVersions of context7.json and serves each pin form; unknown tags list the known ones', async () => {
    const base = await tmpDir()
    await versionedRepo(base)
    redirectGitHub(base)
    const app = await buildTestApp()
    expect((await addRepo(app, await createKey(app), 'https://github.com/acme/lib')).statusCode).toBe(200)
    await waitForLibrary(app, '/acme/lib')
    await waitForJobs(app)

    expect((await context(app, '/acme/lib')).body).toContain("connect('modern.example.com')")
    for (const pinned of ['/acme/lib/v1.0.0', '/acme/lib@v1.0.0', '/acme/lib@1.0.0']) {
      const res = await context(app, pinned)
      expect(res.statusCode, pinned).toBe(200)
      expect(res.body).toContain("connect('legacy.example.com')")
      expect(res.body).not.toContain('modern')
    }
    const search = await app.inject({ url: '/api/v2/libs/search?libraryName=lib' })
    expect(search.json().results[0].versions).toEqual(['v1.0.0'])
    const unknown = await context(app, '/acme/lib@v9.9.9')
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).toEqual({ error: 'tag_not_found', message: expect.stringContaining('Available versions: v1.0.0') })
  })

  it('adds a version from the CLI core, and refuses bad tags and non-git libraries', async () => {
    const base = await tmpDir()
    const repo = await makeGitRepo({ 'docs/guide.md': page('zero') }, { parent: base, name: 'zero' })
    await git(['tag', 'v0.1.0'], repo.dir)
    redirectGitHub(base)
    const app = await buildTestApp()
    await addRepo(app, await createKey(app), 'https://github.com/acme/zero')
    await waitForLibrary(app, '/acme/zero')
    await waitForJobs(app)
    const queued = await addVersion(app.runtime.store, '/acme/zero', 'v0.1.0', undefined, LOCAL, undefined, 'onprem')
    expect(queued.libraryId).toBe('/acme/zero@v0.1.0')
    app.runtime.worker.wake()
    await waitForJobs(app)
    expect((await context(app, '/acme/zero@v0.1.0')).statusCode).toBe(200)
    await expect(addVersion(app.runtime.store, '/acme/zero', '--upload-pack=x', undefined, LOCAL, undefined, 'onprem')).rejects.toMatchObject({ code: 'validation_error' })
    await app.runtime.store.libraries.create({ id: '/websites/docs', title: 'docs', sourceKind: 'website', sourceUrl: 'https://x' })
    await expect(addVersion(app.runtime.store, '/websites/docs', 'v1', undefined, LOCAL, undefined, 'onprem')).rejects.toThrowError(/Versions come from git tags/)
  })
})

describe('refresh', () => {
  it('skips an unchanged commit, picks up a new one, and keeps serving meanwhile', async () => {
    const base = await tmpDir()
    const repo = await makeGitRepo({ 'docs/guide.md': page('first') }, { parent: base, name: 'fresh' })
    redirectGitHub(base)
    const app = await buildTestApp()
    const key = await createKey(app)
    await addRepo(app, key, 'https://github.com/acme/fresh')
    await waitForLibrary(app, '/acme/fresh')
    await waitForJobs(app)
    const refresh = (body: Record<string, unknown>, auth = key) =>
      app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${auth}` }, payload: body })

    const unchanged = await refresh({ libraryName: '/acme/fresh' })
    expect(unchanged.statusCode).toBe(200)
    expect(unchanged.json().message).toMatch(/Refresh of \/acme\/fresh queued \(job \d+\)/)
    await waitForJobs(app)
    expect((await app.runtime.store.jobs.byPk(unchanged.json().jobId))?.statusMessage).toMatch(/^unchanged at/)

    await writeFile(path.join(repo.dir, 'docs/guide.md'), page('second'))
    await git(['commit', '-q', '-am', 'second'], repo.dir)
    expect((await refresh({ libraryName: '/acme/fresh' })).statusCode).toBe(200)
    expect((await context(app, '/acme/fresh')).statusCode).toBe(200)
    await waitForJobs(app)
    expect((await context(app, '/acme/fresh')).body).toContain("connect('second.example.com')")

    const forced = await refresh({ libraryName: '/acme/fresh', force: true })
    await waitForJobs(app)
    expect((await app.runtime.store.jobs.byPk(forced.json().jobId))?.statusMessage).toMatch(/snippets? from/)
  })

  it('answers 409 while a job runs, 403 for imported libraries, 404 for unknown ones, 401 without a key', async () => {
    const app = await buildTestApp({ startWorker: false })
    const key = await createKey(app)
    const { library } = await app.runtime.store.libraries.create({ id: '/acme/busy', title: 'busy', sourceKind: 'github', sourceUrl: 'https://github.com/acme/busy' })
    const refresh = (libraryName: string, auth?: string) =>
      app.inject({ method: 'POST', url: '/api/v1/refresh', headers: auth ? { authorization: `Bearer ${auth}` } : {}, payload: { libraryName } })
    expect((await refresh('/acme/busy', key)).statusCode).toBe(200)
    const busy = await refresh('/acme/busy', key)
    expect(busy.statusCode).toBe(409)
    expect(busy.json().error).toBe('library_busy')
    sqliteOf(app.runtime.store).prepare('UPDATE libraries SET is_imported = 1 WHERE pk = ?').run(library.pk)
    const imported = await refresh('/acme/busy', key)
    expect(imported.statusCode).toBe(403)
    expect(imported.json().message).toBe('Imported libraries cannot be refreshed; export again and import with force.')
    expect((await refresh('/acme/none', key)).json().error).toBe('library_not_found')
    expect((await refresh('/acme/busy')).statusCode).toBe(401)
  })

  it('refreshes only libraries older than the given age', async () => {
    const app = await buildTestApp({ startWorker: false })
    const { version } = await app.runtime.store.libraries.create({ id: '/acme/old', title: 'old', sourceKind: 'github', sourceUrl: 'https://github.com/acme/old' })
    await app.runtime.store.libraries.create({ id: '/acme/new', title: 'new', sourceKind: 'github', sourceUrl: 'https://github.com/acme/new' })
    sqliteOf(app.runtime.store).prepare("UPDATE library_versions SET updated_at = '2020-01-01T00:00:00.000Z' WHERE pk = ?").run(version.pk)
    const { queued } = await refreshStale(app.runtime.store, parseAge('7d'), undefined)
    expect(queued.map((q) => q.libraryId)).toEqual(['/acme/old'])
    expect(() => parseAge('seven days')).toThrowError(/not an age/)
  })
})

describe('parse status', () => {
  it('lists queued jobs with positions, and failures with reasons for key holders', async () => {
    const base = await tmpDir()
    redirectGitHub(base)
    const app = await buildTestApp({ startWorker: false })
    const key = await createKey(app)
    await addRepo(app, key, 'https://github.com/acme/one')
    await addRepo(app, key, 'https://github.com/acme/two')
    const queued = (await app.inject({ url: '/api/parse-status' })).json()
    expect(queued.activeParses['/acme/one']).toMatchObject({ status: 'queued', position: 1 })
    expect(queued.activeParses['/acme/two']).toMatchObject({ status: 'queued', position: 2 })
    await app.runtime.worker.drain()
    const after = (await app.inject({ url: '/api/parse-status', headers: { authorization: `Bearer ${key}` } })).json()
    expect(after.activeParses).toEqual({})
    expect(after.recentFailures.map((f: { project: string }) => f.project).sort()).toEqual(['/acme/one', '/acme/two'])
    expect(after.recentFailures[0]).toMatchObject({ error: 'source_unreachable', message: expect.stringContaining('git clone') })
    // Without a key, the reason's code and its summary only: the raw text names the clone URL.
    const anonymous = (await app.inject({ url: '/api/parse-status' })).json()
    expect(anonymous.recentFailures[0]).toMatchObject({ error: 'source_unreachable', message: 'The source (git host, URL) could not be read.' })
    // A failure leaves the list once its library is ingested again.
    await makeGitRepo({ 'docs/guide.md': page('one') }, { parent: base, name: 'one' })
    expect((await app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${key}` }, payload: { libraryName: '/acme/one' } })).statusCode).toBe(200)
    await app.runtime.worker.drain()
    const fixed = (await app.inject({ url: '/api/parse-status', headers: { authorization: `Bearer ${key}` } })).json()
    expect(fixed.recentFailures.map((f: { project: string }) => f.project)).toEqual(['/acme/two'])
  })
})
