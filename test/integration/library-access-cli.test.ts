/**
 * `lectern libraries access` and the default (`lectern config set access.restrictNewLibraries`)
 * through the real binary, on the data directory of a running server that obeys them at once.
 */
import { describe, expect, it, vi } from 'vitest'
import { exitCodeOf } from '../../cli/run.js'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { tmpDataDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

const DOCS = { 'docs/deploy.md': '# Billing\n\n## Deploy\n\nDeploy the billing service with the deploy script.\n\n```bash\n./deploy.sh v1\n```\n' }

describe('lectern libraries access', () => {
  it('restricts a library to a user and their keys, lists access, and sets the default, on a running install', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir, startWorker: false })
    await seedLibrary(app, '/acme/billing', DOCS)
    await seedLibrary(app, '/acme/widgets', { 'docs/w.md': '# Widgets\n\n## Render\n\nRender a widget.\n\n```js\nrender(w)\n```\n' })
    const cli = async (args: string[], input?: string) => runCli([...args, '--data-dir', dataDir], {}, input === undefined ? {} : { input })
    const json = async (args: string[], input?: string) => {
      const result = await cli([...args, '--json'], input)
      expect(result.exitCode, result.stdout + result.stderr).toBe(0)
      return JSON.parse(result.stdout)
    }
    await json(['users', 'create', 'alice@example.com'], 'correct horse battery staple\n')
    const aliceKey = (await json(['keys', 'create', '--name', 'alice', '--user', 'alice@example.com'])).key as string
    const installKey = await createKey(app)
    const status = async (key: string, id: string) => (await app.inject({ url: `/api/v2/context?libraryId=${id}&query=deploy`, headers: { authorization: `Bearer ${key}` } })).statusCode

    expect(await json(['libraries', 'access', '/acme/billing', '--restrict', '--user', 'alice@example.com'])).toMatchObject({
      libraryId: '/acme/billing',
      access: 'restricted',
      users: [{ email: 'alice@example.com' }],
    })
    expect(await status(installKey, '/acme/billing')).toBe(404)
    expect(await status(aliceKey, '/acme/billing')).toBe(200)
    const listed = await cli(['libraries', 'access'])
    expect(listed.stdout).toContain('Default for libraries nobody configured: everyone.')
    expect(listed.stdout).toMatch(/\/acme\/billing\s+Restricted\s+alice@example.com/)
    expect(listed.stdout).toMatch(/\/acme\/widgets\s+Everyone \(default\)\s+Anyone, with or without a key/)
    // The CLI works on the data directory itself and sees every library.
    expect((await cli(['docs', '/acme/billing', 'deploy'])).stdout).toContain('./deploy.sh v1')

    const set = await cli(['config', 'set', 'access.restrictNewLibraries', 'true'])
    expect(set.exitCode, set.stderr).toBe(0)
    expect(await status(installKey, '/acme/widgets')).toBe(404)
    expect(await status(aliceKey, '/acme/widgets')).toBe(404)
    expect(await json(['libraries', 'access', '/acme/widgets', '--everyone'])).toMatchObject({ access: 'everyone', effective: 'everyone', users: [] })
    expect(await status(installKey, '/acme/widgets')).toBe(200)
    expect((await json(['libraries', 'access'])).restrictNewLibraries).toBe(true)
    expect((await cli(['libraries', 'access', '/acme/billing', '--default'])).stdout).toContain('/acme/billing: restricted (the default); who can access: Admins only.')
    expect(await status(aliceKey, '/acme/billing')).toBe(404)

    // A library ID alone shows its access; --grant and --revoke keep the other grantees, --restrict --user replaces them.
    await json(['users', 'create', 'bob@example.com'], 'correct horse battery staple\n')
    await json(['users', 'create', 'carol@example.com'], 'correct horse battery staple\n')
    expect((await cli(['libraries', 'access', '/acme/billing'])).stdout).toBe('/acme/billing: restricted (the default); who can access: Admins only.')
    expect(await json(['libraries', 'access', '/acme/billing'])).toMatchObject({ libraryId: '/acme/billing', access: 'default', effective: 'restricted', users: [] })
    expect((await cli(['libraries', 'access', '/acme/billing', '--grant', 'alice@example.com', '--grant', 'bob@example.com'])).stdout).toBe(
      '/acme/billing: restricted; who can access: alice@example.com, bob@example.com.',
    )
    expect(await status(aliceKey, '/acme/billing')).toBe(200)
    expect((await cli(['libraries', 'access', '/acme/billing', '--grant', 'carol@example.com', '--revoke', 'bob@example.com'])).stdout).toContain('who can access: alice@example.com, carol@example.com.')
    expect((await cli(['libraries', 'access', '/acme/billing', '--revoke', 'alice@example.com'])).stdout).toContain('who can access: carol@example.com.')
    expect(await status(aliceKey, '/acme/billing')).toBe(404)
    expect((await cli(['libraries', 'access', '/acme/billing', '--restrict', '--user', 'bob@example.com'])).stdout).toContain('who can access: bob@example.com.')
    expect((await json(['libraries', 'access', '/acme/billing'])).users.map((u: { email: string }) => u.email)).toEqual(['bob@example.com'])
  })

  it('sets, shows, lists and removes a namespace rule, which governs the libraries under it', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir, startWorker: false })
    await seedLibrary(app, '/acme/billing', DOCS)
    await seedLibrary(app, '/globex/tools', DOCS)
    const cli = async (...args: string[]) => {
      const result = await runCli([...args, '--data-dir', dataDir])
      expect(result.exitCode, result.stdout + result.stderr).toBe(0)
      return result.stdout
    }
    await runCli(['users', 'create', 'alice@example.com', '--data-dir', dataDir], {}, { input: 'correct horse battery staple\n' })
    const aliceKey = (await app.runtime.store.keys.create('alice', { userId: (await app.runtime.store.users.byEmail('alice@example.com'))!.id, teamId: null })).key
    const installKey = await createKey(app)
    const status = async (key: string, id: string) => (await app.inject({ url: `/api/v2/context?libraryId=${id}&query=deploy`, headers: { authorization: `Bearer ${key}` } })).statusCode

    expect(await cli('libraries', 'access', '/acme/*', '--restrict', '--group', 'acme-engineering')).toBe(
      '/acme/*, governing 1 library without a rule of their own: restricted; who can access: group acme-engineering.',
    )
    expect(await status(installKey, '/acme/billing')).toBe(404)
    expect(await status(installKey, '/globex/tools')).toBe(200)
    expect(await cli('libraries', 'access', '/acme/*', '--grant', 'alice@example.com')).toContain('who can access: alice@example.com, group acme-engineering.')
    expect(await status(aliceKey, '/acme/billing')).toBe(200)
    expect(JSON.parse(await cli('libraries', 'access', '/acme/*', '--json'))).toMatchObject({ namespace: '/acme/*', access: 'restricted', groups: ['acme-engineering'], libraries: 1 })
    expect(await cli('libraries', 'access', '/acme/billing')).toBe('/acme/billing: restricted (the rule of /acme/*); who can access: alice@example.com, group acme-engineering.')
    const copied = await runCli(['libraries', 'access', '/acme/billing', '--grant', 'alice@example.com', '--data-dir', dataDir])
    expect(copied.exitCode).toBe(exitCodeOf('validation_error'))
    expect(copied.stderr).toContain("/acme/billing follows the namespace rule /acme/*: change the grantees there (`lectern libraries access '/acme/*' --grant <email>`)")
    const listed = await cli('libraries', 'access')
    expect(listed).toMatch(/\/acme\/\*\s+Restricted\s+alice@example.com, group acme-engineering\s+1/)
    expect(listed).toMatch(/\/acme\/billing\s+Restricted \(\/acme\/\*\)/)

    expect(await cli('libraries', 'access', '/acme/*', '--default')).toBe('/acme/* has no rule: the libraries under it follow their own rules or the workspace default (open to everyone).')
    expect(await status(installKey, '/acme/billing')).toBe(200)
    // Again, and the same grant again: nothing changes, so nothing more is recorded.
    await cli('libraries', 'access', '/acme/*', '--default')
    expect((await app.inject({ url: '/api/audit?action=access.rule.changed', headers: {} })).statusCode).toBe(401)
    expect((await app.runtime.store.audit.list({ action: 'access.rule.changed' }, { limit: 10 })).map((e) => e.target)).toEqual(['/acme/*', '/acme/*', '/acme/*'])
  })

  it('refuses unknown users and libraries and contradictory flags, changing nothing', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir, startWorker: false })
    await seedLibrary(app, '/acme/billing', DOCS)
    const refused = async (args: string[], code: Parameters<typeof exitCodeOf>[0], message: RegExp) => {
      const result = await runCli(['libraries', 'access', ...args, '--data-dir', dataDir, '--json'])
      expect(result.exitCode, result.stdout).toBe(exitCodeOf(code))
      expect(JSON.parse(result.stdout)).toMatchObject({ error: code, message: expect.stringMatching(message) })
    }
    await refused(['/acme/billing', '--restrict', '--user', 'zed@example.com'], 'user_not_found', /zed@example.com/)
    await refused(['/acme/nothing', '--everyone'], 'library_not_found', /\/acme\/nothing/)
    await refused(['/acme/billing', '--grant', 'alice@example.com'], 'validation_error', /open to everyone, so there is nothing to grant/)
    await refused(['--grant', 'alice@example.com'], 'validation_error', /Name the library/)
    await refused(['/acme/billing', '--restrict', '--grant', 'alice@example.com'], 'validation_error', /grant|restrict/)
    await refused(['--restrict'], 'validation_error', /Name the library/)
    await refused(['/acme/billing', '--everyone', '--restrict'], 'validation_error', /everyone|restrict/)
    await refused(['/acme/billing', '--everyone', '--user', 'a@example.com'], 'validation_error', /restrict/)
    await refused(['/*', '--restrict'], 'validation_error', /workspace default/)
    await refused(['/acme/billing/v1/*', '--restrict'], 'validation_error', /Expected \/owner\/\* or \/owner\/name\/\*/)
    await refused(['/acme/*', '--grant', 'alice@example.com'], 'validation_error', /lectern libraries access '\/acme\/\*' --restrict/)
    await refused(['/acme/*', '--restrict', '--user', 'zed@example.com'], 'user_not_found', /zed@example.com/)
    // A revoke of someone the rule does not grant (a typo, often) changes nothing, rather than passing for done.
    for (const email of ['alice@example.com', 'bob@example.com']) await runCli(['users', 'create', email, '--data-dir', dataDir], {}, { input: 'correct horse battery staple\n' })
    expect((await runCli(['libraries', 'access', '/acme/billing', '--restrict', '--user', 'alice@example.com', '--group', 'billing-team', '--data-dir', dataDir])).exitCode).toBe(0)
    await refused(['/acme/billing', '--revoke-group', 'biling-team'], 'validation_error', /^group biling-team is not among the grantees of \/acme\/billing \(alice@example.com, group billing-team\); nothing was changed\.$/)
    await refused(['/acme/billing', '--revoke', 'bob@example.com', '--revoke-group', 'billing-team'], 'validation_error', /^bob@example.com is not among/)
    expect(await app.runtime.store.libraryAccess.list()).toMatchObject([{ libraryId: '/acme/billing', access: 'restricted', users: [{ email: 'alice@example.com' }], groups: ['billing-team'] }])
    expect((await runCli(['libraries', 'access', '/acme/billing', '--default', '--data-dir', dataDir])).exitCode).toBe(0)
    const cloud = await runCli(['libraries', 'access', '/acme/billing', '--restrict', '--data-dir', dataDir, '--json'], { LECTERN_MODE: 'cloud' })
    expect(cloud.exitCode).toBe(exitCodeOf('forbidden'))
    expect(JSON.parse(cloud.stdout).message).toContain('on-premise only')
    expect(await app.runtime.store.libraryAccess.list()).toMatchObject([{ libraryId: '/acme/billing', access: 'default', users: [] }])
    expect(await app.runtime.store.libraryAccess.namespaces()).toEqual([])
  })
})
