/**
 * The operators' CLI of accounts and teamspaces (`lectern users ...`, `lectern teams ...`,
 * `lectern keys create --user --team`) through the real binary, on a cloud data directory:
 * what each command does to the install, and the exit codes of its refusals.
 */
import { describe, expect, it, vi } from 'vitest'
import { exitCodeOf } from '../../cli/run.js'
import { runCli } from '../helpers/cli.js'
import { tmpDataDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

const PASSWORD = 'correct horse battery staple\n'
const CLOUD = { LECTERN_MODE: 'cloud' }

async function run(dataDir: string, args: string[], input?: string, env: Record<string, string> = CLOUD) {
  const result = await runCli([...args, '--data-dir', dataDir, '--json'], env, input === undefined ? {} : { input })
  return { ...result, json: JSON.parse(result.stdout || 'null') as Record<string, unknown> & Array<Record<string, unknown>> }
}

async function ok(dataDir: string, args: string[], input?: string, env?: Record<string, string>) {
  const result = await run(dataDir, args, input, env)
  expect(result.exitCode, `${args.join(' ')}: ${result.stdout} ${result.stderr}`).toBe(0)
  return result.json
}

async function refused(dataDir: string, args: string[], code: Parameters<typeof exitCodeOf>[0], message: RegExp, input?: string) {
  const result = await run(dataDir, args, input)
  expect(result.exitCode, result.stdout).toBe(exitCodeOf(code))
  expect(result.json).toMatchObject({ error: code, message: expect.stringMatching(message) })
}

describe('lectern users and teams (cloud)', () => {
  it('creates users with personal spaces, a teamspace, members, plans and keys within it', async () => {
    const dataDir = await tmpDataDir()
    const alice = await ok(dataDir, ['users', 'create', 'alice@example.com'], PASSWORD)
    expect(alice).toMatchObject({ email: 'alice@example.com', role: 'member', personalTeam: { name: 'alice@example.com', plan: 'free' } })
    await ok(dataDir, ['users', 'create', 'bob@example.com'], PASSWORD)
    expect((await ok(dataDir, ['users', 'list'])).map((u) => u.email)).toEqual(['alice@example.com', 'bob@example.com'])

    // alice's personal plan is free: a teamspace needs --plan pro or enterprise.
    await refused(dataDir, ['teams', 'create', 'Acme', '--owner', 'alice@example.com'], 'forbidden', /pro or enterprise.*alice@example.com's plan is free: create it with --plan pro/)
    await refused(dataDir, ['teams', 'create', 'Acme', '--owner', 'alice@example.com', '--plan', 'free'], 'forbidden', /pro or enterprise/)
    await refused(dataDir, ['teams', 'create', 'Acme', '--owner', 'nobody@example.com', '--plan', 'pro'], 'user_not_found', /nobody@example.com/)
    expect(await ok(dataDir, ['teams', 'create', 'Acme', '--owner', 'alice@example.com', '--plan', 'pro'])).toMatchObject({ name: 'Acme', plan: 'pro', personalUserId: null })
    await ok(dataDir, ['teams', 'plan', 'set', 'bob@example.com', 'enterprise'])
    expect(await ok(dataDir, ['teams', 'create', 'Labs', '--owner', 'bob@example.com'])).toMatchObject({ name: 'Labs', plan: 'enterprise' })

    expect(await ok(dataDir, ['teams', 'add-member', 'Acme', 'bob@example.com', '--role', 'developer'])).toMatchObject({ email: 'bob@example.com', role: 'developer' })
    expect((await ok(dataDir, ['teams', 'members', 'Acme'])).map((m) => [m.email, m.role])).toEqual([['alice@example.com', 'owner'], ['bob@example.com', 'developer']])
    const listed = await ok(dataDir, ['teams', 'list'])
    expect(listed.find((t) => t.name === 'Acme')).toMatchObject({ plan: 'pro', owner: 'alice@example.com', members: 2 })

    const teamKey = await ok(dataDir, ['keys', 'create', '--name', 'cursor-bob', '--user', 'bob@example.com', '--team', 'Acme'])
    expect(teamKey).toMatchObject({ name: 'cursor-bob', userId: 2, teamId: listed.find((t) => t.name === 'Acme')!.id })
    expect(teamKey.key).toMatch(/^lct_/)
    const personalKey = await ok(dataDir, ['keys', 'create', '--name', 'laptop', '--user', 'bob@example.com'])
    expect(personalKey.teamId).toBe(listed.find((t) => t.name === 'bob@example.com')!.id)
    await refused(dataDir, ['keys', 'create', '--name', 'x', '--user', 'alice@example.com', '--team', 'Labs'], 'user_not_found', /alice@example.com is not a member of Labs/)
    await refused(dataDir, ['keys', 'create', '--name', 'x', '--user', 'alice@example.com', '--team', 'Nope'], 'team_not_found', /Nope/)

    // Removing bob revokes his key for Acme, not his personal one.
    expect(await ok(dataDir, ['teams', 'remove-member', 'Acme', 'bob@example.com'])).toEqual({ team: 'Acme', email: 'bob@example.com', revokedKeys: 1 })
    const keys = await ok(dataDir, ['keys', 'list'])
    // The TEAM column: the teamspace a key works in, a personal space by its email.
    const table = await runCli(['keys', 'list', '--data-dir', dataDir], CLOUD)
    expect(table.stdout).toMatch(/cursor-bob\s+lct_\S+\s+bob@example.com\s+Acme\s/)
    expect(table.stdout).toMatch(/laptop\s+lct_\S+\s+bob@example.com\s+bob@example.com\s/)
    expect(keys.find((k) => k.id === teamKey.id)!.revokedAt).not.toBeNull()
    expect(keys.find((k) => k.id === personalKey.id)!.revokedAt).toBeNull()
    await refused(dataDir, ['teams', 'remove-member', 'Acme', 'bob@example.com'], 'user_not_found', /not a member of Acme/)
    await refused(dataDir, ['teams', 'remove-member', 'Acme', 'alice@example.com'], 'forbidden', /owner cannot be removed; .*`DELETE \/api\/teams\/:team` \(signed in as the owner\), or the operator with `lectern teams delete <team>`/)

    // Deleting the teamspace: refused without --yes off a terminal, then gone with its keys.
    const unconfirmed = await runCli(['teams', 'delete', 'Acme', '--data-dir', dataDir], CLOUD)
    expect(unconfirmed.exitCode).toBe(2)
    expect(unconfirmed.stderr).toContain('pass --yes')
    expect(await ok(dataDir, ['teams', 'delete', 'Acme', '--yes'])).toEqual({ removed: 'Acme', libraries: [] })
    expect((await ok(dataDir, ['teams', 'list'])).map((t) => t.name)).not.toContain('Acme')
    await refused(dataDir, ['teams', 'delete', 'Acme', '--yes'], 'team_not_found', /Acme/)
    await refused(dataDir, ['teams', 'delete', 'alice@example.com', '--yes'], 'forbidden', /personal space cannot be deleted/)
  })

  it('refuses unknown teams and users, members past the plan, and bad plans and roles', async () => {
    const dataDir = await tmpDataDir()
    await ok(dataDir, ['users', 'create', 'alice@example.com'], PASSWORD)
    await ok(dataDir, ['users', 'create', 'bob@example.com'], PASSWORD)
    await refused(dataDir, ['users', 'create', 'alice@example.com'], 'validation_error', /already exists/, PASSWORD)
    await refused(dataDir, ['users', 'create', 'carol@example.com'], 'validation_error', /at least 12 characters/, 'short\n')
    await refused(dataDir, ['teams', 'members', 'Ghosts'], 'team_not_found', /Ghosts/)
    await refused(dataDir, ['teams', 'plan', 'set', 'Ghosts', 'pro'], 'team_not_found', /Ghosts/)
    await refused(dataDir, ['teams', 'plan', 'set', 'alice@example.com', 'platinum'], 'validation_error', /platinum/)
    await refused(dataDir, ['keys', 'create', '--name', 'x', '--user', 'carol@example.com'], 'user_not_found', /carol@example.com/)
    await refused(dataDir, ['keys', 'create', '--name', 'x', '--team', 'Acme'], 'validation_error', /user/)

    await ok(dataDir, ['teams', 'create', 'Solo', '--owner', 'alice@example.com', '--plan', 'pro'])
    await refused(dataDir, ['teams', 'add-member', 'Solo', 'bob@example.com', '--role', 'owner'], 'validation_error', /owner/)
    await refused(dataDir, ['teams', 'add-member', 'Solo', 'zed@example.com', '--role', 'admin'], 'user_not_found', /zed@example.com/)
    await ok(dataDir, ['teams', 'plan', 'set', 'Solo', 'free'])
    await refused(dataDir, ['teams', 'add-member', 'Solo', 'bob@example.com', '--role', 'admin'], 'forbidden', /free plan of Solo allows 1 member/)
    expect((await ok(dataDir, ['teams', 'members', 'Solo'])).map((m) => m.email)).toEqual(['alice@example.com'])
  })

  it('on-premise: a user without a personal space, and a key of theirs without a team', async () => {
    const dataDir = await tmpDataDir()
    expect(await ok(dataDir, ['users', 'create', 'alice@example.com'], PASSWORD, {})).toMatchObject({ role: 'member', personalTeam: null })
    expect(await ok(dataDir, ['keys', 'create', '--name', 'alice', '--user', 'alice@example.com'], undefined, {})).toMatchObject({ userId: 1, teamId: null })
    expect((await run(dataDir, ['teams', 'list'], undefined, {})).json).toMatchObject({ error: 'forbidden', message: expect.stringContaining('Teamspaces are a cloud feature') })
    await ok(dataDir, ['keys', 'create', '--name', 'ci'], undefined, {})
    const people = await runCli(['users', 'list', '--data-dir', dataDir])
    expect(people.stdout).toMatch(/alice@example.com\s+member/)
    // Keys list their owner: a key without one reaches open libraries only.
    const keys = await runCli(['keys', 'list', '--data-dir', dataDir])
    expect(keys.stdout).toMatch(/alice\s+lct_\S+\s+alice@example.com\s+-\s/)
    expect(keys.stdout).toMatch(/ci\s+lct_\S+\s+-\s+-\s/)
  })
})
