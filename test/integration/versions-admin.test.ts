/**
 * Versions as an operator manages them with the real CLI: `versions add` asks the remote for the
 * tag before creating anything, a context7.json previousVersions tag the remote lacks fails as
 * tag_not_found, and `versions remove` deletes a version with its set, FTS table and engine file;
 * neither it nor `libraries remove` deletes what a running job writes into.
 */
import { existsSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { LOCAL } from '../../src/library/access.js'
import { addVersion } from '../../src/jobs/library-jobs.js'
import { engineFilePath } from '../../src/install/paths.js'
import { LISTED_TAGS } from '../../src/sources/git-tags.js'
import { addRepo, buildTestApp, createKey } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { git, gitRedirectEnv, makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { sqliteOf } from '../../src/store/index.js'
import { testClaimer, heldByTest } from '../helpers/jobs.js'

// Every CLI step spawns node; on a loaded two-core machine a spawn can take seconds.
vi.setConfig({ testTimeout: 120_000 })

const defer = suiteTeardown()
const page = (what: string) => `# Guide\n\n## Connect\n\nConnect to the ${what} server with the connect function.\n\n\`\`\`js\nconnect('${what}.example.com')\n\`\`\`\n`
const EXTRA_TAGS = Array.from({ length: 24 }, (_, i) => `v0.${i + 1}.0`)
let app: FastifyInstance
let dataDir: string
let gitEnv: Record<string, string>

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  const lib = await makeGitRepo({ 'docs/guide.md': page('legacy') }, { parent: remotes, name: 'lib' })
  for (const tag of ['v1.0.0', 'v1.1.0', ...EXTRA_TAGS]) await git(['tag', tag], lib.dir)
  await makeGitRepo(
    { 'docs/guide.md': page('declared'), 'context7.json': JSON.stringify({ previousVersions: [{ tag: 'v0.0.9', title: 'Never tagged' }] }) },
    { parent: remotes, name: 'declares' },
  )
  gitEnv = gitRedirectEnv(remotes)
  redirectGitHub(remotes, defer)
  // No worker: jobs run when a test drains the queue, or in the CLI's --wait.
  app = await buildTestApp({ defer, startWorker: false })
  dataDir = app.lecternOptions.config.dataDir
  const key = await createKey(app)
  for (const repo of ['lib', 'declares']) expect((await addRepo(app, key, `https://github.com/acme/${repo}`)).statusCode).toBe(200)
  await app.runtime.worker.drain()
})

const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], gitEnv)
const context = (libraryId: string) => app.inject({ url: '/api/v2/context', query: { libraryId, query: 'connect to the server' } })
const tagsOf = async (id: string) => (await app.runtime.store.libraries.versions((await app.runtime.store.libraries.byId(id))!.pk)).map((v) => v.tag)

describe('versions add', () => {
  it('refuses a tag the remote lacks with 404 tag_not_found listing a bounded number of tags, creating and queueing nothing', async () => {
    const jobsBefore = (await app.runtime.store.jobs.list()).length
    const result = await cli(['versions', 'add', '/acme/lib', 'v9.9.9', '--json'])
    expect(result.exitCode, result.stderr).toBe(4)
    const body = JSON.parse(result.stdout)
    expect(body).toEqual({ error: 'tag_not_found', message: expect.stringContaining('Tag "v9.9.9" does not exist in the repository of /acme/lib.') })
    expect(body.message).toContain('v1.1.0, v1.0.0, v0.24.0')
    expect(body.message).toContain(`(and ${EXTRA_TAGS.length + 2 - LISTED_TAGS} more)`)
    expect(body.message).not.toMatch(/file:|github\.com/)
    expect(await tagsOf('/acme/lib')).toEqual([''])
    expect(await app.runtime.store.jobs.list()).toHaveLength(jobsBefore)
    await expect(addVersion(app.runtime.store, '/acme/lib', 'v9.9.9', undefined, LOCAL, undefined, 'onprem')).rejects.toMatchObject({ code: 'tag_not_found' })
  })

  it('ingests a tag the remote has', async () => {
    const result = await cli(['versions', 'add', '/acme/lib', 'v1.0.0', '--wait', '--json'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ libraryId: '/acme/lib@v1.0.0', state: 'succeeded' })
    expect((await context('/acme/lib@v1.0.0')).body).toContain("connect('legacy.example.com')")
  })

  it('fails a previousVersions tag of context7.json that the remote lacks with tag_not_found, not source_unreachable', async () => {
    const library = (await app.runtime.store.libraries.byId('/acme/declares'))!
    expect(await app.runtime.store.libraries.version(library.pk, 'v0.0.9')).toMatchObject({ state: 'error', errorCode: 'tag_not_found' })
    const res = await context('/acme/declares@v0.0.9')
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: 'tag_not_found', message: 'Tag "v0.0.9" does not exist in the repository of /acme/declares; it has no tags.' })
  })
})

describe('versions remove', () => {
  it('deletes a version with its snippet set, FTS table and engine file; the default branch keeps serving', async () => {
    const { store } = app.runtime
    expect((await cli(['versions', 'add', '/acme/lib', 'v1.1.0', '--wait'])).exitCode).toBe(0)
    const setPk = (await store.libraries.version((await store.libraries.byId('/acme/lib'))!.pk, 'v1.1.0'))!.currentSet!
    expect(existsSync(engineFilePath(store.paths, setPk))).toBe(true)

    const result = await cli(['versions', 'remove', '/acme/lib', 'v1.1.0', '--yes', '--json'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ id: '/acme/lib@v1.1.0', tag: 'v1.1.0', sets: 1 })
    expect(await tagsOf('/acme/lib')).not.toContain('v1.1.0')
    expect(await store.snippets.set(setPk)).toBeUndefined()
    expect(sqliteOf(store).prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'fts_${setPk}'`).pluck().get()).toBe(0)
    expect(existsSync(engineFilePath(store.paths, setPk))).toBe(false)
    expect((await context('/acme/lib@v1.1.0')).json().error).toBe('tag_not_found')
    expect((await context('/acme/lib')).statusCode).toBe(200)
  })

  it('refuses the default branch, naming the command that removes the library', async () => {
    for (const tag of ['main', '']) {
      const result = await cli(['versions', 'remove', '/acme/lib', tag, '--yes', '--json'])
      expect(result.exitCode, result.stderr).toBe(2)
      expect(JSON.parse(result.stdout)).toEqual({ error: 'validation_error', message: expect.stringContaining('lectern libraries remove /acme/lib') })
    }
    expect(await tagsOf('/acme/lib')).toContain('')
  })

  it('refuses a version whose job is running, and changes nothing', async () => {
    const { store } = app.runtime
    const queued = await addVersion(store, '/acme/lib', 'v0.3.0', undefined, LOCAL, undefined, 'onprem')
    expect((await store.jobs.claimNext(testClaimer))?.pk).toBe(queued.job.pk)
    const result = await cli(['versions', 'remove', '/acme/lib', 'v0.3.0', '--yes', '--json'])
    expect(result.exitCode, result.stderr).toBe(5)
    expect(JSON.parse(result.stdout)).toEqual({ error: 'library_busy', message: expect.stringContaining(`job ${queued.job.pk}`) })
    expect(await tagsOf('/acme/lib')).toContain('v0.3.0')
    expect((await store.jobs.byPk(queued.job.pk))?.state).toBe('running')
    await store.jobs.fail(heldByTest(queued.job.pk), 'internal_error', 'test over')
  })

  it('answers an unknown tag with tag_not_found', async () => {
    const result = await cli(['versions', 'remove', '/acme/lib', 'v7.7.7', '--yes', '--json'])
    expect(result.exitCode).toBe(4)
    expect(JSON.parse(result.stdout).error).toBe('tag_not_found')
  })
})

describe('libraries remove', () => {
  it('refuses a library whose job is running, then removes it with its queued jobs once none runs', async () => {
    const { store } = app.runtime
    const library = (await store.libraries.byId('/acme/declares'))!
    const running = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: (await store.libraries.version(library.pk, ''))!.pk })
    expect((await store.jobs.claimNext(testClaimer))?.pk).toBe(running.pk)
    const refused = await cli(['libraries', 'remove', '/acme/declares', '--yes', '--json'])
    expect(refused.exitCode, refused.stderr).toBe(5)
    expect(JSON.parse(refused.stdout)).toEqual({ error: 'library_busy', message: `Library /acme/declares is being processed (job ${running.pk}); remove it once the job has ended.` })
    expect(await store.libraries.byId('/acme/declares')).toBeDefined()
    expect((await store.jobs.byPk(running.pk))?.state).toBe('running')

    await store.jobs.fail(heldByTest(running.pk), 'internal_error', 'test over')
    const queued = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: (await store.libraries.version(library.pk, ''))!.pk })
    const removed = await cli(['libraries', 'remove', '/acme/declares', '--yes', '--json'])
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(await store.libraries.byId('/acme/declares')).toBeUndefined()
    expect(await store.jobs.byPk(queued.pk)).toBeUndefined()
  })
})
