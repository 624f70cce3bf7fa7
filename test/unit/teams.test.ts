import { describe, expect, it, onTestFinished } from 'vitest'
import { ANONYMOUS, callerOf, LOCAL, type Caller } from '../../src/library/access.js'
import { canSeeLibrary, decide } from '../../src/library/visibility.js'
import { applyPatch, type PolicySubject } from '../../src/tenancy/policies.js'
import { defaultPolicy } from '../../src/store/policies.js'
import { openStore, type Store } from '../../src/store/index.js'
import { can } from '../../src/tenancy/roles.js'
import { TEAM_ROLES } from '../../src/store/teams.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { membersAllowed } from '../../src/tenancy/plans.js'

async function freshStore(): Promise<Store> {
  const store = await openStore(await tmpDataDir())
  onTestFinished(() => store.close())
  return store
}

const PASSWORD = 'correct horse battery staple'

async function people(store: Store) {
  const owner = await store.users.create({ email: 'owner@example.com', password: PASSWORD, role: 'member' })
  const dev = await store.users.create({ email: 'dev@example.com', password: PASSWORD, role: 'member' })
  const outsider = await store.users.create({ email: 'out@example.com', password: PASSWORD, role: 'member' })
  return { owner, dev, outsider }
}

describe('teamspaces', () => {
  it('gives every user one personal team, named by their email, on the free plan', async () => {
    const store = await freshStore()
    const { owner } = await people(store)
    const personal = await store.teams.personalTeam(owner.id)
    expect(personal).toMatchObject({ name: 'owner@example.com', plan: 'free', personalUserId: owner.id })
    expect((await store.teams.personalTeam(owner.id)).id).toBe(personal.id)
    expect(await store.teams.membershipsOf(owner.id)).toEqual([{ team: personal, role: 'owner' }])
    await expect(store.teams.addMember(personal.id, owner.id + 1, 'developer', membersAllowed)).rejects.toThrow(expect.objectContaining({ code: 'forbidden' }))
  })

  it('holds members to the plan: free 1, pro 10, enterprise unlimited', async () => {
    const store = await freshStore()
    const { owner, dev, outsider } = await people(store)
    const team = await store.teams.create({ name: 'Acme Docs', ownerUserId: owner.id, plan: 'free' })
    await expect(store.teams.addMember(team.id, dev.id, 'developer', membersAllowed)).rejects.toThrow(/free plan of Acme Docs allows 1 member/)
    await store.teams.setPlan(team.id, 'pro')
    expect(await store.teams.addMember(team.id, dev.id, 'developer', membersAllowed)).toMatchObject({ email: 'dev@example.com', role: 'developer' })
    await expect(store.teams.addMember(team.id, dev.id, 'admin', membersAllowed)).rejects.toThrow(/already a member/)
    const extra = await Promise.all(Array.from({ length: 8 }, async (_, i) => await store.users.create({ email: `m${i}@example.com`, password: PASSWORD, role: 'member' })))
    for (const user of extra) await store.teams.addMember(team.id, user.id, 'developer', membersAllowed)
    await expect(store.teams.addMember(team.id, outsider.id, 'developer', membersAllowed)).rejects.toThrow(expect.objectContaining({ code: 'forbidden', message: expect.stringMatching(/allows 10 members/) }))
    await store.teams.setPlan(team.id, 'enterprise')
    expect((await store.teams.addMember(team.id, outsider.id, 'admin', membersAllowed)).role).toBe('admin')
    expect((await store.teams.members(team.id)).map((m) => m.role).slice(0, 2)).toEqual(['owner', 'admin'])
  })

  it('refuses bad names, duplicates, and unknown teams and users with their codes', async () => {
    const store = await freshStore()
    const { owner } = await people(store)
    await store.teams.create({ name: 'acme', ownerUserId: owner.id, plan: 'pro' })
    await expect(store.teams.create({ name: 'ACME', ownerUserId: owner.id, plan: 'pro' })).rejects.toThrow(/already exists/)
    for (const bad of ['a', 'x@y.z', '-dash', 'a/b', '']) {
      await expect(store.teams.create({ name: bad, ownerUserId: owner.id, plan: 'pro' })).rejects.toThrow(expect.objectContaining({ code: 'validation_error' }))
    }
    await expect(store.teams.create({ name: 'ghost team', ownerUserId: 999, plan: 'pro' })).rejects.toThrow(expect.objectContaining({ code: 'user_not_found' }))
    await expect(store.teams.members(999)).rejects.toThrow(expect.objectContaining({ code: 'team_not_found' }))
    expect(await store.teams.byName('ghost team')).toBeUndefined()
  })

  it('keeps the owner, and revokes a removed member’s keys for that team only', async () => {
    const store = await freshStore()
    const { owner, dev } = await people(store)
    const team = await store.teams.create({ name: 'acme', ownerUserId: owner.id, plan: 'pro' })
    await store.teams.addMember(team.id, dev.id, 'developer', membersAllowed)
    const teamKey = await store.keys.create('laptop', { userId: dev.id, teamId: team.id })
    const ownKey = await store.keys.create('personal', { userId: dev.id, teamId: (await store.teams.personalTeam(dev.id)).id })
    await expect(store.teams.removeMember(team.id, owner.id)).rejects.toThrow(expect.objectContaining({ code: 'forbidden' }))
    await expect(store.teams.setRole(team.id, owner.id, 'admin')).rejects.toThrow(expect.objectContaining({ code: 'forbidden' }))
    expect((await store.teams.setRole(team.id, dev.id, 'admin')).role).toBe('admin')
    expect(await store.teams.removeMember(team.id, dev.id)).toEqual({ revokedKeys: 1 })
    expect(await store.keys.verify(teamKey.key)).toBeUndefined()
    expect(await store.keys.verify(ownKey.key)).toMatchObject({ userId: dev.id })
    expect(await store.teams.teamIdsOf(dev.id)).toEqual([(await store.teams.personalTeam(dev.id)).id])
    await expect(store.teams.removeMember(team.id, dev.id)).rejects.toThrow(expect.objectContaining({ code: 'user_not_found' }))
  })

  it('lists keys by team and by user', async () => {
    const store = await freshStore()
    const { owner, dev } = await people(store)
    const team = await store.teams.create({ name: 'acme', ownerUserId: owner.id, plan: 'pro' })
    await store.teams.addMember(team.id, dev.id, 'developer', membersAllowed)
    await store.keys.create('a', { userId: owner.id, teamId: team.id })
    await store.keys.create('b', { userId: dev.id, teamId: team.id })
    await store.keys.create('install')
    expect((await store.keys.list({ teamId: team.id })).map((k) => k.name)).toEqual(['a', 'b'])
    expect((await store.keys.list({ teamId: team.id, userId: dev.id })).map((k) => k.name)).toEqual(['b'])
    expect((await store.keys.list()).map((k) => k.name)).toEqual(['a', 'b', 'install'])
  })
})

describe('roles', () => {
  it('is exactly the permission table of the teamspace guide', () => {
    const table = Object.fromEntries(TEAM_ROLES.map((role) => [role, ['viewDashboard', 'createKeys', 'manageMembers', 'manageLibraryAccess', 'managePrivateSources', 'renameTeam', 'deleteTeam'].filter((p) => can(role, p as never))]))
    expect(table).toEqual({
      owner: ['viewDashboard', 'createKeys', 'manageMembers', 'manageLibraryAccess', 'managePrivateSources', 'renameTeam', 'deleteTeam'],
      admin: ['viewDashboard', 'createKeys', 'manageMembers', 'manageLibraryAccess', 'managePrivateSources'],
      developer: ['viewDashboard', 'createKeys'],
    })
  })
})

/** `caller` with libraries closed to it by access control; a local caller (the CLI) has none to close. */
function withClosed(caller: Caller, pks: number[]): Caller {
  if (caller.kind === 'local') throw new Error('a local caller has no libraries closed to it')
  return { ...caller, closed: new Set(pks) }
}

describe('who sees a library', () => {
  const publicLib = { pk: 1, isPrivate: false, teamPk: null }
  const installPrivate = { pk: 2, isPrivate: true, teamPk: null }
  const teamPrivate = { pk: 3, isPrivate: true, teamPk: 7 }
  const noTeams = async () => []

  it('on-premise: every key and session is an insider', async () => {
    const key = await callerOf({ apiKey: { id: 1, userId: null, teamId: null }, user: null }, 'onprem', noTeams)
    const member = await callerOf({ apiKey: null, user: { id: 2, role: 'member' } }, 'onprem', noTeams)
    for (const caller of [key, member, LOCAL]) expect(canSeeLibrary(caller, installPrivate)).toBe(true)
    expect(canSeeLibrary(ANONYMOUS, installPrivate)).toBe(false)
    expect(canSeeLibrary(ANONYMOUS, publicLib)).toBe(true)
    // A library closed to a caller by access control is closed whatever else holds; the CLI has none closed.
    for (const caller of [key, member, ANONYMOUS]) expect(canSeeLibrary(withClosed(caller, [1, 2]), publicLib)).toBe(false)
    expect(canSeeLibrary(withClosed(key, [2]), publicLib)).toBe(true)
  })

  it('cloud: a teamspace’s private library is seen by its keys and members, and by the operator', async () => {
    const teamKey = await callerOf({ apiKey: { id: 1, userId: 3, teamId: 7 }, user: null }, 'cloud', noTeams)
    const otherKey = await callerOf({ apiKey: { id: 2, userId: 4, teamId: 8 }, user: null }, 'cloud', noTeams)
    const member = await callerOf({ apiKey: null, user: { id: 3, role: 'member' } }, 'cloud', async () => [5, 7])
    const stranger = await callerOf({ apiKey: null, user: { id: 4, role: 'member' } }, 'cloud', async () => [8])
    const operator = await callerOf({ apiKey: null, user: { id: 1, role: 'admin' } }, 'cloud', noTeams)
    expect([teamKey, member, operator, LOCAL].map((c) => canSeeLibrary(c, teamPrivate))).toEqual([true, true, true, true])
    expect([otherKey, stranger, ANONYMOUS].map((c) => canSeeLibrary(c, teamPrivate))).toEqual([false, false, false])
    // A private library with no team (added by the operator) is the operator's alone.
    expect([teamKey, member, operator].map((c) => canSeeLibrary(c, installPrivate))).toEqual([false, false, true])
    // A key of no teamspace is the operator's: an insider like its admin session.
    const operatorKey = await callerOf({ apiKey: { id: 9, userId: null, teamId: null }, user: null }, 'cloud', noTeams)
    expect(operatorKey).toMatchObject({ insider: true })
    expect([installPrivate, teamPrivate].every((l) => canSeeLibrary(operatorKey, l))).toBe(true)
    expect(teamKey).toMatchObject({ insider: false })
    expect([teamKey, stranger, ANONYMOUS].every((c) => canSeeLibrary(c, publicLib))).toBe(true)
  })

  it('the verdict: unknown before the policy is asked, denied only by the policy settled on a teamspace key', async () => {
    const subjectOf = (library: { isPrivate: boolean; teamPk: number | null }, id: string): PolicySubject => ({
      id, sourceKind: 'github', sourceUrl: `https://github.com${id}`, trustScore: 5, indexedAt: null, ...library,
    })
    const policy = applyPatch(defaultPolicy(), { libraryFilters: { mode: 'quality', quality: { blockedLibraries: { add: ['/acme/blocked'] } } } })
    const teamKey = await callerOf({ apiKey: { id: 1, userId: 3, teamId: 7 }, user: null }, 'cloud', noTeams)
    const filtered: Caller = { ...teamKey, policy } as Caller
    let asked = 0
    const blocked = () => { asked++; return subjectOf(publicLib, '/acme/blocked') }
    expect(decide(filtered, publicLib, blocked)).toBe('denied')
    expect(decide(filtered, publicLib, () => subjectOf(publicLib, '/acme/open'))).toBe('visible')
    // Library filters judge public libraries: the teamspace's own private ones answer only to the source types.
    expect(decide(filtered, teamPrivate, () => subjectOf(teamPrivate, '/acme/blocked'))).toBe('visible')
    // A library the caller may not see is unknown, whatever its policy says: the policy is not asked.
    asked = 0
    expect(decide(filtered, installPrivate, blocked)).toBe('unknown')
    expect(decide(withClosed(filtered, [1]), publicLib, blocked)).toBe('unknown')
    expect(asked).toBe(0)
    // A teamspace key whose policy filters nothing is settled with none; callers that no policy
    // filters (the operator's key, sessions, anonymous, the CLI) are never asked about one.
    const operatorKey = await callerOf({ apiKey: { id: 9, userId: null, teamId: null }, user: null }, 'cloud', noTeams)
    const member = await callerOf({ apiKey: null, user: { id: 3, role: 'member' } }, 'cloud', async () => [7])
    for (const caller of [{ ...teamKey, policy: null } as Caller, operatorKey, member, ANONYMOUS, LOCAL]) expect(decide(caller, publicLib, blocked)).toBe('visible')
    expect(asked).toBe(0)
    // A teamspace key nobody settled is an error, never a key that no policy filters.
    expect(() => decide(teamKey, publicLib, blocked)).toThrow(/policy was not settled/)
  })
})
