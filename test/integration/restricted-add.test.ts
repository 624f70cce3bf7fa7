/**
 * On-premise with `access.restrictNewLibraries` on, a library a member adds is closed to them
 * until an admin grants it: the add's answer says so (REST message, CLI output) instead of a
 * bare "submitted" followed by 404s.
 */
import { describe, expect, it, vi } from 'vitest'
import { addRepo, buildTestApp } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { signIn } from '../helpers/session.js'
import { tmpDataDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 60_000 })

describe('adding a library that the default restricts', () => {
  it("tells a member the library is closed to them until an admin grants it, and says nothing to those who reach it", async () => {
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir, startWorker: false })
    const admin = { cookie: `lectern_session=${(await signIn(app, 'admin')).lectern_session}` }
    await signIn(app, 'member', 'alice@example.com')
    const { users, keys } = app.runtime.store
    const aliceKey = (await keys.create('alice', { userId: (await users.byEmail('alice@example.com'))!.id, teamId: null })).key
    const adminKey = (await app.inject({ method: 'POST', url: '/api/keys', headers: admin, payload: { name: 'ops' } })).json().key as string

    const open = await addRepo(app, aliceKey, 'https://github.com/acme/open')
    expect(open.json().message).toMatch(/^Library \/acme\/open submitted for processing \(job \d+\)\.$/)

    expect((await app.inject({ method: 'PUT', url: '/api/library-access/default', headers: admin, payload: { restrictNewLibraries: true } })).statusCode).toBe(200)
    const closed = await addRepo(app, aliceKey, 'https://github.com/acme/closed')
    expect(closed.statusCode).toBe(200)
    expect(closed.json().message).toMatch(
      /^Library \/acme\/closed submitted for processing \(job \d+\)\. \/acme\/closed stays unknown to you \(404\) until an admin grants you access \(`lectern libraries access \/acme\/closed --grant <email>`, or Library access in the dashboard's Settings\): new libraries are restricted on this install \(access\.restrictNewLibraries\)\.$/,
    )
    const asAlice = await app.inject({ url: '/api/v2/context?libraryId=/acme/closed&query=x', headers: { authorization: `Bearer ${aliceKey}` } })
    expect(asAlice.statusCode).toBe(404)

    const byAdmin = await addRepo(app, adminKey, 'https://github.com/acme/ops')
    expect(byAdmin.json().message).toMatch(/^Library \/acme\/ops submitted for processing \(job \d+\)\.$/)
    await app.close()

    const cli = await runCli(['add', 'https://github.com/acme/cli', '--data-dir', dataDir, '--json'])
    expect(cli.exitCode, cli.stderr).toBe(0)
    expect(JSON.parse(cli.stdout).message).toContain(
      '/acme/cli is reached by admins only until you grant users access: new libraries are restricted on this install (access.restrictNewLibraries); `lectern libraries access /acme/cli --grant <email>`.',
    )
  })
})
