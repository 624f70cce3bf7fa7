/**
 * GitOps against a real git server (git http-backend on loopback) holding the manifest repository
 * and the repositories it lists: a dry run plans and changes nothing; a sync adds, re-indexes what
 * changed, leaves the rest, skips what was added by hand, and with pruning removes only what it
 * added; an unchanged commit does nothing; an invalid manifest changes nothing and is audited;
 * only admins (a session, or an admin's key) reach the API, and the cloud has none of it.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it, vi } from 'vitest'
import { buildTestApp, seedLibrary, waitForLibrary } from '../helpers/app.js'
import { git, makeGitRepo } from '../helpers/git.js'
import { pollUntil } from '../helpers/poll.js'
import { startGitServer, type GitServer } from '../helpers/git-server.js'
import { signIn } from '../helpers/session.js'
import { tmpDir } from '../helpers/tmp.js'
import { automaticSync } from '../../src/gitops/reconcile.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'

const guide = (topic: string) => `# ${topic}\n\n## Install ${topic}\n\nInstall ${topic} with the package manager.\n\n\`\`\`bash\nnpm install ${topic.toLowerCase()}\n\`\`\`\n`

async function setUp(options: { startWorker?: boolean } = {}) {
  const root = await tmpDir('lectern-gitops-')
  await makeGitRepo({ 'docs/guide.md': guide('Widgets'), 'internal/notes.md': guide('Secretnotes') }, { parent: path.join(root, 'acme'), name: 'widgets' })
  await makeGitRepo({ 'docs/guide.md': guide('Gadgets') }, { parent: path.join(root, 'acme'), name: 'gadgets' })
  const manifestRepo = await makeGitRepo({ 'repos.yaml': 'repos: []\n' }, { parent: path.join(root, 'ops'), name: 'sources' })
  const server = await startGitServer(root)
  const app = await buildTestApp(options)
  const admin = { cookie: `lectern_session=${(await signIn(app, 'admin')).lectern_session}` }
  const commitManifest = async (text: string) => {
    await writeFile(path.join(manifestRepo.dir, 'repos.yaml'), text)
    await git(['commit', '-qam', 'manifest'], manifestRepo.dir)
    return await git(['rev-parse', 'HEAD'], manifestRepo.dir)
  }
  const configure = (body: object, headers: Record<string, string> = admin) => app.inject({ method: 'PUT', url: '/api/gitops/config', headers, payload: body })
  const reconcile = (query = '', headers: Record<string, string> = admin) => app.inject({ method: 'POST', url: `/api/gitops/reconcile${query}`, headers })
  return { app, server, admin, commitManifest, configure, reconcile, manifestUrl: `${server.url}/ops/sources` }
}

const plan = (body: { entries: Array<{ libraryId: string; action: string }> }) => body.entries.map((e) => [e.action, e.libraryId])
const repoUrl = (server: GitServer, name: string) => `${server.url}/acme/${name}`

async function snippetText(app: FastifyInstance, id: string): Promise<string> {
  return (await app.inject({ url: `/api/v2/context?libraryId=${id}&query=install&type=txt` })).body
}

describe('GitOps', () => {
  it('plans, adds, re-indexes what changed, skips what was added by hand, and prunes only what it added', async () => {
    const { app, server, admin, commitManifest, configure, reconcile, manifestUrl } = await setUp()
    await seedLibrary(app, '/acme/manual', { 'docs/manual.md': guide('Manual') })
    expect((await configure({ repoUrl: manifestUrl })).json()).toEqual({ repoUrl: manifestUrl, path: 'repos.yaml', branch: '', prune: false, enabled: false, schedule: '' })
    const first = await commitManifest(`defaults:
  folders: [docs]
repos:
  - url: ${repoUrl(server, 'widgets')}
  - repoUrl: ${repoUrl(server, 'gadgets')}
    type: git
  - url: ${repoUrl(server, 'manual')}
`)

    const dry = await reconcile('?dryRun=true')
    expect(dry.statusCode, dry.body).toBe(200)
    expect(dry.json()).toMatchObject({ dryRun: true, commit: first, created: 2, skipped: 1 })
    expect(plan(dry.json())).toEqual([['create', '/acme/widgets'], ['create', '/acme/gadgets'], ['skip', '/acme/manual']])
    expect(await app.runtime.store.libraries.byId('/acme/widgets')).toBeUndefined()

    const synced = await reconcile()
    expect(synced.json()).toMatchObject({ dryRun: false, created: 2, skipped: 1, failed: 0, upToDate: false })
    for (const id of ['/acme/widgets', '/acme/gadgets']) expect((await waitForLibrary(app, id)).state).toBe('finalized')
    // The defaults' folders replace the repository's own choice: docs/ only.
    expect(await snippetText(app, '/acme/widgets')).toContain('npm install widgets')
    expect(await snippetText(app, '/acme/widgets')).not.toContain('secretnotes')
    expect((await reconcile()).json()).toMatchObject({ upToDate: true, created: 0, entries: [] })

    // A changed entry is re-indexed; an unchanged one left; a removed one kept while pruning is off.
    await commitManifest(`repos:
  - url: ${repoUrl(server, 'widgets')}
  - url: ${repoUrl(server, 'gadgets')}
    folders: [docs]
    excludeFiles: [CHANGELOG.md]
`)
    const changed = await reconcile()
    expect(plan(changed.json())).toEqual([['update', '/acme/widgets'], ['update', '/acme/gadgets']])
    await waitForLibrary(app, '/acme/widgets')
    await pollJobsIdle(app)
    expect(await snippetText(app, '/acme/widgets')).toContain('npm install secretnotes')
    await commitManifest(`repos:
  - url: ${repoUrl(server, 'widgets')}
`)
    expect(plan((await reconcile()).json())).toEqual([['unchanged', '/acme/widgets']])
    expect(await app.runtime.store.libraries.byId('/acme/gadgets')).toBeDefined()

    // Pruning removes what GitOps added and the manifest no longer lists, never the hand-added library.
    await configure({ prune: true })
    const pruned = await reconcile()
    expect(plan(pruned.json())).toEqual([['unchanged', '/acme/widgets'], ['prune', '/acme/gadgets']])
    expect(await app.runtime.store.libraries.byId('/acme/gadgets')).toBeUndefined()
    expect(await app.runtime.store.libraries.byId('/acme/manual')).toBeDefined()

    const status = (await app.inject({ url: '/api/gitops/status', headers: admin })).json()
    expect(status).toMatchObject({ config: { prune: true }, managed: [{ libraryId: '/acme/widgets' }], lastSync: { pruned: 1 }, lastError: null })
    const events = (await app.runtime.store.audit.list({ action: 'gitops' }, { limit: 10 })).map((e) => [e.action, e.details.created, e.details.pruned])
    expect(events).toEqual([['gitops.synced', 0, 1], ['gitops.synced', 0, 0], ['gitops.synced', 0, 0], ['gitops.synced', 2, 0]])
  })

  it('submits every type of the reference as `lectern add` would, with its fields', async () => {
    const { app, commitManifest, configure, reconcile, manifestUrl } = await setUp({ startWorker: false })
    await app.runtime.store.connections.create(INSTALL_CONNECTIONS, { kind: 'confluence', name: 'acme-wiki', baseUrl: 'https://acme.atlassian.net/wiki', email: 'ops@acme.example', token: 'wiki-token' })
    await configure({ repoUrl: manifestUrl })
    await commitManifest(`defaults:
  maxPages: 40
  indexSourceCode: false
repos:
  - url: https://docs.acme.example/guide/
    type: website
    maxDepth: 2
    title: Acme guide
  - url: https://docs.acme.example/llms.txt
    type: llmstxt
  - url: https://api.acme.example/openapi.json
    type: openapi
    title: Acme API
  - url: https://acme.atlassian.net/wiki
    type: confluence
    spaceKey: TEAM
    spaceName: Team space
  - url: https://wiki.other.example/wiki
    type: confluence
    spaceKey: OPS
  - url: https://beta.atlassian.net/wiki
    type: confluence
    spaceKey: BETA
`)
    const synced = (await reconcile()).json()
    expect(plan(synced)).toEqual([
      ['create', '/websites/docs.acme.example-guide'],
      ['create', '/llmstxt/docs.acme.example-llms.txt'],
      ['create', '/docs/api.acme.example-openapi'],
      ['create', '/confluence/team-space'],
      ['fail', 'https://wiki.other.example/wiki'],
      ['fail', 'https://beta.atlassian.net/wiki'],
    ])
    // The hint runs as written: a Data Center token alone, a Cloud one with its account's email.
    expect(synced.entries[4].reason).toContain('No Confluence connection for https://wiki.other.example/wiki: add it with `lectern connections add confluence --name <name> --site https://wiki.other.example/wiki --token-stdin`')
    expect(synced.entries[5].reason).toContain('--site https://beta.atlassian.net/wiki --email <account email> --token-stdin`')
    const { libraries } = app.runtime.store
    expect(await libraries.byId('/websites/docs.acme.example-guide')).toMatchObject({ title: 'Acme guide', options: { spec: { maxPages: 40, maxDepth: 2 } } })
    expect(await libraries.byId('/llmstxt/docs.acme.example-llms.txt')).toMatchObject({ options: { spec: { maxPages: 40 } } })
    expect((await libraries.byId(synced.entries[2].libraryId))!.title).toBe('Acme API')
    expect(await libraries.byId('/confluence/team-space')).toMatchObject({ isPrivate: true, options: { spec: { connection: 'acme-wiki', spaceKey: 'TEAM' } } })
    // A failed entry leaves the sync incomplete: the next one tries it again although the commit is the same.
    expect((await reconcile()).json()).toMatchObject({ upToDate: false, unchanged: 4, failed: 2 })
    // With pruning on, a library whose entry fails is never pruned for it: the entry may be the one that makes it.
    await configure({ prune: true })
    await app.runtime.store.connections.remove(INSTALL_CONNECTIONS, 'acme-wiki')
    const kept = (await reconcile()).json()
    expect(plan(kept)).toContainEqual(['skip', '/confluence/team-space'])
    expect(kept).toMatchObject({ pruned: 0, failed: 3 })
    expect(await libraries.byId('/confluence/team-space')).toBeDefined()
  })

  it('changes nothing for an invalid manifest, saying every problem with its place, and audits it', async () => {
    const { app, server, admin, commitManifest, configure, reconcile, manifestUrl } = await setUp()
    expect((await reconcile()).json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('lectern gitops config --repo') })
    await configure({ repoUrl: manifestUrl })
    await commitManifest(`repos:
  - url: ${repoUrl(server, 'widgets')}
  - url: https://docs.example.com/
    type: website
    maxPages: 10
    spaceKey: TEAM
  - type: svn
    url: svn://example.com/x
  - type: llmstxt
  - url: ${repoUrl(server, 'gadgets')}
    brnach: main
`)
    const refused = await reconcile()
    expect(refused.statusCode).toBe(400)
    const { message } = refused.json() as { message: string }
    expect(message).toContain('nothing was changed')
    expect(message).toContain('repos[1]: "spaceKey" is not a field of this type')
    expect(message).toContain('repos[2].type: "svn" is not a type')
    expect(message).toContain('repos[3]: needs a url')
    expect(message).toContain('repos[4]: "brnach" is not a field of this type')
    expect(await app.runtime.store.libraries.byId('/acme/widgets')).toBeUndefined()
    expect((await app.inject({ url: '/api/gitops/status', headers: admin })).json()).toMatchObject({ lastSync: null, lastError: { message: expect.stringContaining('repos[2]') } })
    expect((await app.runtime.store.audit.list({ action: 'gitops.failed' }, { limit: 5 }))[0]).toMatchObject({ outcome: 'failure', target: manifestUrl })

    for (const [text, why] of [
      [`repos:\n  - url: ${repoUrl(server, 'widgets')}\n  - url: ${repoUrl(server, 'widgets')}.git\n`, 'repos[0] and repos[1] both make /acme/widgets'],
      ['repos: [\n', 'it is not YAML'],
      ['repos:\n  - url: https://docs.example.com/\n    type: website\n    excludePatterns: [/blog]\n', 'excludePatterns is not supported by Lectern yet'],
    ]) {
      await commitManifest(text)
      expect((await reconcile()).json().message).toContain(why)
    }
    await configure({ path: 'missing.yaml' })
    expect((await reconcile()).json().message).toContain('has no file missing.yaml')
    expect((await configure({ path: '../etc/passwd' })).json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('inside the repository') })
    expect((await configure({ branch: 'no..dots' })).json().error).toBe('validation_error')
    expect((await configure({ colour: 'red' })).statusCode).toBe(400)
    expect((await configure({ schedule: '0 0 31 2 *' })).json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('names no date that exists') })
    expect((await configure({ schedule: 'hourly' })).json().error).toBe('validation_error')
    expect(await app.runtime.store.libraries.list()).toEqual([])
  })

  it('syncs by itself at start when automatic syncs are on, and on its schedule; never when they are off', async () => {
    const { app, server, configure, commitManifest, manifestUrl } = await setUp({ startWorker: false })
    const dataDir = app.runtime.store.paths.root
    await commitManifest(`repos:\n  - url: ${repoUrl(server, 'widgets')}\n`)
    expect((await configure({ enabled: true })).json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('manifest repository') })
    await configure({ repoUrl: manifestUrl, schedule: 'daily' })
    const log = { info: vi.fn(), warn: vi.fn() }
    await automaticSync(app.runtime.store, 'schedule', log)
    expect(await app.runtime.store.libraries.byId('/acme/widgets')).toBeUndefined()
    await configure({ enabled: true })
    await app.close()

    // A restart with automatic syncs on: the server syncs as it starts, as Lectern itself.
    const restarted = await buildTestApp({ dataDir })
    expect((await waitForLibrary(restarted, '/acme/widgets')).state).toBe('finalized')
    const [started] = await restarted.runtime.store.audit.list({ action: 'gitops.synced' }, { limit: 1 })
    expect(started).toMatchObject({ actor: { kind: 'system' }, details: { trigger: 'start', created: 1 } })
    // The schedule's sync finds the manifest unchanged; a broken manifest is logged, never thrown.
    await automaticSync(restarted.runtime.store, 'schedule', log)
    expect(log.info).toHaveBeenLastCalledWith(expect.objectContaining({ trigger: 'schedule', upToDate: true }), 'GitOps sync done')
    await commitManifest('repos: [\n')
    await automaticSync(restarted.runtime.store, 'schedule', log)
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ trigger: 'schedule' }), expect.stringContaining('GitOps sync failed'))
    await restarted.close()
  })

  it('is for admins, by session or by the API key of an admin; the cloud has none of it', async () => {
    const { app, configure, reconcile, manifestUrl } = await setUp()
    const member = { cookie: `lectern_session=${(await signIn(app, 'member', 'mel@example.com')).lectern_session}` }
    const { users, keys } = app.runtime.store
    const keyOf = async (email: string | null) => ({ authorization: `Bearer ${(await keys.create('ci', email === null ? undefined : { userId: (await users.byEmail(email))!.id, teamId: null })).key}` })
    expect((await configure({ repoUrl: manifestUrl }, member)).statusCode).toBe(403)
    expect((await configure({ repoUrl: manifestUrl }, {})).statusCode).toBe(401)
    for (const refused of [member, await keyOf('mel@example.com'), await keyOf(null)]) expect((await reconcile('', refused)).statusCode).toBe(403)
    expect((await reconcile('', {})).statusCode).toBe(401)
    const adminKey = await keyOf('admin@example.com')
    // An admin's key runs syncs and reads the status (CI); only an admin session changes where the manifest is.
    expect((await configure({ repoUrl: manifestUrl }, adminKey)).statusCode).toBe(401)
    expect((await configure({ repoUrl: manifestUrl })).statusCode).toBe(200)
    const [one, two] = await Promise.all([reconcile('', adminKey), reconcile('', adminKey)])
    expect([one.statusCode, two.statusCode].sort()).toEqual([200, 409])
    expect([one, two].find((r) => r.statusCode === 409)!.json().error).toBe('sync_running')
    expect((await reconcile('?force=true', adminKey)).json()).toMatchObject({ created: 0, failed: 0 })
    expect((await app.inject({ url: '/api/gitops/status', headers: adminKey })).json().config.repoUrl).toBe(manifestUrl)

    const cloud = await buildTestApp({ mode: 'cloud', startWorker: false })
    const cloudAdmin = { cookie: `lectern_session=${(await signIn(cloud, 'admin')).lectern_session}` }
    expect((await cloud.inject({ method: 'POST', url: '/api/gitops/reconcile', headers: cloudAdmin })).statusCode).toBe(404)
    await cloud.close()
  })
})

/** Every queued job has ended. */
async function pollJobsIdle(app: FastifyInstance): Promise<void> {
  await pollUntil('jobs to end', async () => ((await app.runtime.store.jobs.list({ states: ['queued', 'running'] })).length === 0 ? true : undefined), 30_000)
}
