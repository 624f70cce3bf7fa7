/**
 * `lectern teams plan set` through the real binary: a plan below the team's members and pending
 * invitations is refused with how many to remove; a plan without private sources keeps the
 * team's private libraries readable, says so, and refuses new private sources.
 */
import { describe, expect, it, vi } from 'vitest'
import { exitCodeOf } from '../../cli/run.js'
import { buildTestApp, waitForLibrary } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { openInstall } from '../helpers/stores.js'
import { bearer } from '../helpers/tenants.js'
import { tmpDataDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

const PASSWORD = 'correct horse battery staple\n'
const CLOUD = { LECTERN_MODE: 'cloud' }
const PETS = 'openapi: 3.0.0\ninfo: { title: Pets, version: "1" }\npaths:\n  /pets:\n    get:\n      summary: List the pets in the store\n      responses: { "200": { description: ok } }\n'

async function cli(dataDir: string, args: string[], input?: string) {
  const result = await runCli([...args, '--data-dir', dataDir], CLOUD, input === undefined ? {} : { input })
  return { ...result, text: result.stdout.replace(/\s+/g, ' ') }
}

async function upload(url: string, key: string) {
  const form = new FormData()
  form.set('openapiFile', new Blob([PETS]), 'pets.yaml')
  return fetch(`${url}/api/v2/add/openapi-upload`, { method: 'POST', headers: bearer(key), body: form })
}

describe('lectern teams plan set', () => {
  it('refuses a plan below the members, and keeps private libraries readable on the free plan', async () => {
    const dataDir = await tmpDataDir()
    for (const email of ['alice@example.com', 'bob@example.com', 'carol@example.com']) expect((await cli(dataDir, ['users', 'create', email], PASSWORD)).exitCode).toBe(0)
    expect((await cli(dataDir, ['teams', 'create', 'Acme', '--owner', 'alice@example.com', '--plan', 'pro'])).exitCode).toBe(0)
    for (const email of ['bob@example.com', 'carol@example.com']) expect((await cli(dataDir, ['teams', 'add-member', 'Acme', email, '--role', 'developer'])).exitCode).toBe(0)
    const key = (await cli(dataDir, ['keys', 'create', '--name', 'alice', '--user', 'alice@example.com', '--team', 'Acme'])).stdout.trim()

    const app = await buildTestApp({ dataDir, mode: 'cloud' })
    const url = await app.listen({ host: '127.0.0.1', port: 0 })
    const added = await upload(url, key)
    expect(added.status).toBe(200)
    const { libraryName } = (await added.json()) as { libraryName: string }
    await waitForLibrary(app, libraryName)
    // A pending invitation counts like a member: accepting it would pass the limit.
    const { users, invitations } = app.runtime.store
    const acmePk = (await app.runtime.store.teams.byName('Acme'))!.id
    const invited = await invitations.upsert({ teamId: acmePk, email: 'dave@example.com', role: 'developer', invitedBy: (await users.byEmail('alice@example.com'))!.id, ttlMs: 3_600_000 })

    const withInvitation = await runCli(['teams', 'plan', 'set', 'Acme', 'free', '--data-dir', dataDir, '--json'], CLOUD)
    expect(JSON.parse(withInvitation.stdout)).toEqual({
      error: 'forbidden',
      message: 'The free plan allows 1 member, and Acme has 3 members and 1 pending invitation: remove 3 first (`lectern teams remove-member Acme <email>`, or cancel invitations: `lectern teams invitations Acme --cancel <email>`), or choose a larger plan.',
    })
    await invitations.remove(acmePk, invited.invitation.id)
    await app.close()

    const refused = await runCli(['teams', 'plan', 'set', 'Acme', 'free', '--data-dir', dataDir, '--json'], CLOUD)
    expect(refused.exitCode).toBe(exitCodeOf('forbidden'))
    expect(JSON.parse(refused.stdout)).toEqual({
      error: 'forbidden',
      message: 'The free plan allows 1 member, and Acme has 3 members: remove 2 first (`lectern teams remove-member Acme <email>`), or choose a larger plan.',
    })
    expect((await cli(dataDir, ['teams', 'list'])).text).toMatch(/Acme teamspace pro alice@example.com 3/)

    for (const email of ['bob@example.com', 'carol@example.com']) expect((await cli(dataDir, ['teams', 'remove-member', 'Acme', email])).exitCode).toBe(0)
    const set = await cli(dataDir, ['teams', 'plan', 'set', 'Acme', 'free'])
    expect(set.exitCode, set.stderr).toBe(0)
    expect(set.text).toContain(`Acme is now on the free plan. Its 1 private library stays readable (${libraryName}); adding private sources is refused on the free plan.`)

    const after = await buildTestApp({ dataDir, mode: 'cloud' })
    const afterUrl = await after.listen({ host: '127.0.0.1', port: 0 })
    const context = await fetch(`${afterUrl}/api/v2/context?libraryId=${encodeURIComponent(libraryName)}&query=pets`, { headers: bearer(key) })
    expect(context.status).toBe(200)
    const again = await upload(afterUrl, key)
    expect(again.status).toBe(403)
    expect(await again.json()).toMatchObject({ error: 'forbidden' })
  })

  it('tells an owner alone with a pending invitation to cancel it, which `lectern teams invitations` lists and cancels', async () => {
    const dataDir = await tmpDataDir()
    expect((await cli(dataDir, ['users', 'create', 'alice@example.com'], PASSWORD)).exitCode).toBe(0)
    expect((await cli(dataDir, ['teams', 'create', 'Acme', '--owner', 'alice@example.com', '--plan', 'pro'])).exitCode).toBe(0)
    const store = await openInstall(dataDir)
    try {
      await store.invitations.upsert({ teamId: (await store.teams.byName('Acme'))!.id, email: 'dave@example.com', role: 'developer', invitedBy: (await store.users.byEmail('alice@example.com'))!.id, ttlMs: 3_600_000 })
    } finally {
      await store.close()
    }
    const refused = await runCli(['teams', 'plan', 'set', 'Acme', 'free', '--data-dir', dataDir, '--json'], CLOUD)
    expect(refused.exitCode).toBe(exitCodeOf('forbidden'))
    expect(JSON.parse(refused.stdout)).toEqual({
      error: 'forbidden',
      message: 'The free plan allows 1 member, and Acme has 1 member and 1 pending invitation: cancel 1 pending invitation first (`lectern teams invitations Acme --cancel <email>`; the owner is never removed), or choose a larger plan.',
    })
    const listed = await runCli(['teams', 'invitations', 'Acme', '--data-dir', dataDir, '--json'], CLOUD)
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ email: 'dave@example.com', role: 'developer' })])
    const unknown = await runCli(['teams', 'invitations', 'Acme', '--cancel', 'erin@example.com', '--data-dir', dataDir, '--json'], CLOUD)
    expect(unknown.exitCode).toBe(exitCodeOf('not_found'))
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: 'not_found', message: expect.stringContaining('no pending invitation of erin@example.com') })
    expect((await cli(dataDir, ['teams', 'invitations', 'Acme', '--cancel', 'DAVE@example.com'])).text).toContain('Cancelled the invitation of dave@example.com to Acme.')
    expect((await cli(dataDir, ['teams', 'plan', 'set', 'Acme', 'free'])).exitCode).toBe(0)
  })
})
