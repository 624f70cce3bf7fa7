/**
 * The cloud's teamspace API through HTTP (inject, cloud mode, mail over SMTP to a local sink, the
 * stand-in for the operator's relay): creating teams by plan, the permission table of
 * howto/teamspace.mdx for owner, admin, developer and a non-member, invitations pending until
 * accepted, the plan's member limit with pending invitations, keys of a member within a team, and
 * what removing a member or a team takes with it.
 */
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { startSmtpSink, tokenIn, type SmtpSink } from '../helpers/smtp-sink.js'
import { sqlOf } from '../../src/store/index.js'
import { membersAllowed } from '../../src/tenancy/plans.js'
import { testClaimer, heldByTest } from '../helpers/jobs.js'

const PASSWORD = 'a long and varied passphrase'
type Cookies = { lectern_session: string }

async function cloudApp(): Promise<{ app: FastifyInstance; sink: SmtpSink }> {
  const sink = await startSmtpSink()
  const app = await buildTestApp({ mode: 'cloud', mail: { smtpUrl: sink.url, publicUrl: 'https://lectern.example.test' } })
  return { app, sink }
}

/** A verified cloud user (as the operator's CLI makes one), signed in. */
async function user(app: FastifyInstance, email: string): Promise<Cookies> {
  if (!await app.runtime.store.users.byEmail(email)) await app.runtime.store.users.create({ email, password: PASSWORD, role: 'member' })
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } })
  expect(login.statusCode, login.body).toBe(200)
  return { lectern_session: login.cookies.find((c) => c.name === 'lectern_session')!.value }
}

const call = (app: FastifyInstance, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, cookies?: Cookies, payload?: object) =>
  app.inject({ method, url, cookies, payload })

async function setPersonalPlan(app: FastifyInstance, email: string, plan: 'free' | 'pro' | 'enterprise'): Promise<void> {
  const { users, teams } = app.runtime.store
  await teams.setPlan((await teams.personalTeam((await users.byEmail(email))!.id)).id, plan)
}

const userId = async (app: FastifyInstance, email: string) => (await app.runtime.store.users.byEmail(email))!.id

/** A pro teamspace with an owner, an admin, a developer, and an outsider with a team of their own. */
async function team(app: FastifyInstance) {
  const owner = await user(app, 'owner@example.com')
  await setPersonalPlan(app, 'owner@example.com', 'pro')
  const created = await call(app, 'POST', '/api/teams', owner, { name: 'Acme Docs' })
  expect(created.statusCode, created.body).toBe(201)
  const id = created.json().id as number
  const admin = await user(app, 'admin@example.com')
  const developer = await user(app, 'dev@example.com')
  const outsider = await user(app, 'out@example.com')
  await app.runtime.store.teams.addMember(id, await userId(app, 'admin@example.com'), 'admin', membersAllowed)
  await app.runtime.store.teams.addMember(id, await userId(app, 'dev@example.com'), 'developer', membersAllowed)
  return { id, owner, admin, developer, outsider }
}

describe('creating teamspaces', () => {
  it('is refused on a free plan with 403, allowed on pro, and the new team is on the creator\'s plan', async () => {
    const { app } = await cloudApp()
    const cookies = await user(app, 'pat@example.com')
    const refused = await call(app, 'POST', '/api/teams', cookies, { name: 'Pat Team' })
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual({ error: 'forbidden', message: 'Creating a teamspace needs a pro or enterprise plan.' })
    expect(await app.runtime.store.teams.byName('Pat Team')).toBeUndefined()

    await setPersonalPlan(app, 'pat@example.com', 'pro')
    const created = await call(app, 'POST', '/api/teams', cookies, { name: 'Pat Team' })
    expect(created.statusCode).toBe(201)
    expect(created.json()).toMatchObject({ name: 'Pat Team', plan: 'pro', personal: false, role: 'owner', limits: { members: 10, privateSources: true, createsTeams: true, rateMultiplier: 5 } })
    const list = await call(app, 'GET', '/api/teams', cookies)
    // The install's keyed limit comes along: the dashboard shows each plan's requests per key (buildTestApp turns limits off).
    expect(list.json().rateLimit).toEqual({ keyed: 0, windowSeconds: 60 })
    expect(list.json().teams.map((t: { name: string; role: string }) => [t.name, t.role])).toEqual([
      ['pat@example.com', 'owner'],
      ['Pat Team', 'owner'],
    ])
    const taken = await call(app, 'POST', '/api/teams', cookies, { name: 'pat team' })
    expect(taken.statusCode).toBe(400)
    const badName = await call(app, 'POST', '/api/teams', cookies, { name: '../etc' })
    expect(badName.statusCode).toBe(400)
  })

  it('needs a session (401) and exists only in the cloud (404 on-premise)', async () => {
    const { app } = await cloudApp()
    expect((await call(app, 'GET', '/api/teams')).statusCode).toBe(401)
    const onprem = await buildTestApp({ mode: 'onprem' })
    const cookies = await user(onprem, 'pat@example.com')
    expect((await call(onprem, 'GET', '/api/teams', cookies)).statusCode).toBe(404)
  })

  it('refuses a cookie write from another site (CSRF) with 403, and creates nothing', async () => {
    const { app } = await cloudApp()
    const cookies = await user(app, 'pat@example.com')
    await setPersonalPlan(app, 'pat@example.com', 'pro')
    const forged = await app.inject({ method: 'POST', url: '/api/teams', cookies, payload: { name: 'Forged' }, headers: { origin: 'https://evil.example' } })
    expect(forged.statusCode).toBe(403)
    expect(forged.json().error).toBe('forbidden')
    expect(await app.runtime.store.teams.byName('Forged')).toBeUndefined()
  })
})

describe('the permission table', () => {
  it('lets everyone view and create keys; owners and admins manage members; only the owner renames and deletes; a non-member gets 404', async () => {
    const { app } = await cloudApp()
    const { id, owner, admin, developer, outsider } = await team(app)
    const devId = await userId(app, 'dev@example.com')
    const adminId = await userId(app, 'admin@example.com')
    const expectStatus = async (cookies: Cookies, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, status: number, payload?: object) => {
      const response = await call(app, method, url, cookies, payload)
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(status)
      return response
    }

    for (const cookies of [owner, admin, developer]) await expectStatus(cookies, 'GET', `/api/teams/${id}/members`, 200)
    const outsiderView = await expectStatus(outsider, 'GET', `/api/teams/${id}/members`, 404)
    expect(outsiderView.json().error).toBe('team_not_found')
    expect((await expectStatus(owner, 'GET', '/api/teams/99999/members', 404)).json().error).toBe('team_not_found')

    // Members and invitations: owner and admin.
    await expectStatus(owner, 'POST', `/api/teams/${id}/invitations`, 201, { email: 'new1@example.com', role: 'developer' })
    await expectStatus(admin, 'POST', `/api/teams/${id}/invitations`, 201, { email: 'new2@example.com', role: 'admin' })
    expect((await expectStatus(developer, 'POST', `/api/teams/${id}/invitations`, 403, { email: 'new3@example.com', role: 'developer' })).json().error).toBe('forbidden')
    await expectStatus(outsider, 'POST', `/api/teams/${id}/invitations`, 404, { email: 'new3@example.com', role: 'developer' })
    await expectStatus(developer, 'GET', `/api/teams/${id}/invitations`, 403)
    const pending = await expectStatus(admin, 'GET', `/api/teams/${id}/invitations`, 200)
    expect(pending.json().invitations.map((i: { email: string }) => i.email)).toEqual(['new1@example.com', 'new2@example.com'])
    expect(pending.body).not.toMatch(/token/i)

    await expectStatus(developer, 'PATCH', `/api/teams/${id}/members/${adminId}`, 403, { role: 'developer' })
    await expectStatus(admin, 'PATCH', `/api/teams/${id}/members/${devId}`, 200, { role: 'admin' })
    await expectStatus(owner, 'PATCH', `/api/teams/${id}/members/${devId}`, 200, { role: 'developer' })
    await expectStatus(admin, 'PATCH', `/api/teams/${id}/members/${await userId(app, 'owner@example.com')}`, 403, { role: 'developer' })
    await expectStatus(owner, 'PATCH', `/api/teams/${id}/members/${devId}`, 400, { role: 'owner' })
    expect((await expectStatus(owner, 'PATCH', `/api/teams/${id}/members/99999`, 404, { role: 'admin' })).json().error).toBe('user_not_found')
    expect((await expectStatus(owner, 'DELETE', `/api/teams/${id}/members/99999`, 404)).json().error).toBe('user_not_found')
    await expectStatus(developer, 'DELETE', `/api/teams/${id}/members/${adminId}`, 403)

    // Rename and delete: the owner only.
    await expectStatus(admin, 'PATCH', `/api/teams/${id}`, 403, { name: 'Renamed' })
    await expectStatus(developer, 'PATCH', `/api/teams/${id}`, 403, { name: 'Renamed' })
    await expectStatus(outsider, 'PATCH', `/api/teams/${id}`, 404, { name: 'Renamed' })
    expect((await expectStatus(owner, 'PATCH', `/api/teams/${id}`, 200, { name: 'Renamed' })).json().name).toBe('Renamed')
    await expectStatus(admin, 'DELETE', `/api/teams/${id}`, 403)
    await expectStatus(developer, 'DELETE', `/api/teams/${id}`, 403)
    await expectStatus(outsider, 'DELETE', `/api/teams/${id}`, 404)
    expect((await app.runtime.store.teams.byPk(id))?.name).toBe('Renamed')
    await expectStatus(owner, 'DELETE', `/api/teams/${id}`, 200)
    expect(await app.runtime.store.teams.byPk(id)).toBeUndefined()
    await expectStatus(admin, 'GET', `/api/teams/${id}/members`, 404)
  })

  it('keeps a personal space personal: not renamed, deleted or joined', async () => {
    const { app } = await cloudApp()
    const cookies = await user(app, 'solo@example.com')
    await setPersonalPlan(app, 'solo@example.com', 'enterprise')
    const personal = (await call(app, 'GET', '/api/teams', cookies)).json().teams[0].id as number
    expect((await call(app, 'PATCH', `/api/teams/${personal}`, cookies, { name: 'Mine' })).statusCode).toBe(403)
    expect((await call(app, 'DELETE', `/api/teams/${personal}`, cookies)).statusCode).toBe(403)
    const invite = await call(app, 'POST', `/api/teams/${personal}/invitations`, cookies, { email: 'friend@example.com', role: 'developer' })
    expect(invite.statusCode).toBe(403)
    expect(invite.json().message).toContain('personal space')
  })
})

describe('keys of a member within a team', () => {
  it('are created by every member; a developer sees and revokes their own, owners and admins all; removing a member revokes theirs at once', async () => {
    const { app } = await cloudApp()
    const { id, owner, admin, developer, outsider } = await team(app)
    const create = async (cookies: Cookies, name: string) => {
      const response = await call(app, 'POST', `/api/teams/${id}/keys`, cookies, { name })
      expect(response.statusCode, response.body).toBe(201)
      return response.json() as { id: number; key: string; userId: number; teamId: number }
    }
    const ownerKey = await create(owner, 'owner ci')
    const adminKey = await create(admin, 'admin laptop')
    const devKey = await create(developer, 'dev laptop')
    expect(devKey).toMatchObject({ userId: await userId(app, 'dev@example.com') })
    expect((await call(app, 'POST', `/api/teams/${id}/keys`, outsider, { name: 'x' })).statusCode).toBe(404)

    const names = async (cookies: Cookies) => (await call(app, 'GET', `/api/teams/${id}/keys`, cookies)).json().keys.map((k: { name: string }) => k.name)
    expect(await names(developer)).toEqual(['dev laptop'])
    expect(await names(admin)).toEqual(['owner ci', 'admin laptop', 'dev laptop'])
    expect(JSON.stringify((await call(app, 'GET', `/api/teams/${id}/keys`, owner)).json())).not.toContain(devKey.key)

    const devRevokesOwner = await call(app, 'DELETE', `/api/teams/${id}/keys/${ownerKey.id}`, developer)
    expect(devRevokesOwner.statusCode).toBe(404)
    expect(devRevokesOwner.json().error).toBe('key_not_found')
    expect((await call(app, 'DELETE', `/api/teams/${id}/keys/${adminKey.id}`, admin)).json().revokedAt).not.toBeNull()

    const search = (key: string) => app.inject({ method: 'GET', url: '/api/v2/libs/search?libraryName=react&query=hooks', headers: { authorization: `Bearer ${key}` } })
    expect((await search(devKey.key)).statusCode).not.toBe(401)
    expect((await search(adminKey.key)).statusCode).toBe(401)

    const removed = await call(app, 'DELETE', `/api/teams/${id}/members/${await userId(app, 'dev@example.com')}`, admin)
    expect(removed.json()).toEqual({ removed: await userId(app, 'dev@example.com'), revokedKeys: 1 })
    const refused = await search(devKey.key)
    expect(refused.statusCode).toBe(401)
    expect(refused.json().error).toBe('invalid_api_key')
    expect((await call(app, 'GET', `/api/teams/${id}/members`, developer)).statusCode).toBe(404)
    expect((await search(ownerKey.key)).statusCode).not.toBe(401)
  })

  it('lets a member leave on their own', async () => {
    const { app } = await cloudApp()
    const { id, developer } = await team(app)
    const left = await call(app, 'DELETE', `/api/teams/${id}/members/${await userId(app, 'dev@example.com')}`, developer)
    expect(left.statusCode).toBe(200)
    expect(await app.runtime.store.teams.roleOf(id, await userId(app, 'dev@example.com'))).toBeUndefined()
  })
})

describe('invitations', () => {
  it('stay pending until the invitee signs up and confirms the address, then add them with the invited role', async () => {
    const { app, sink } = await cloudApp()
    const { id, owner } = await team(app)
    const invited = await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'newbie@example.com', role: 'admin' })
    expect(invited.statusCode).toBe(201)
    const mail = await sink.next('newbie@example.com')
    expect(mail.subject).toBe('owner@example.com invited you to Acme Docs on Lectern')
    expect(mail.text).toContain('https://lectern.example.test/invitations#token=')

    await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email: 'newbie@example.com', password: PASSWORD } })
    const verifyToken = tokenIn(await sink.next('newbie@example.com'), 'verify')
    const unverified = await user(app, 'newbie@example.com')
    expect(await app.runtime.store.teams.roleOf(id, await userId(app, 'newbie@example.com'))).toBeUndefined()
    expect((await call(app, 'GET', `/api/teams/${id}/members`, unverified)).statusCode).toBe(404)

    await app.inject({ method: 'POST', url: '/api/auth/verify', payload: { token: verifyToken } })
    expect(await app.runtime.store.teams.roleOf(id, await userId(app, 'newbie@example.com'))).toBe('admin')
    expect((await call(app, 'GET', `/api/teams/${id}/invitations`, owner)).json().invitations).toEqual([])
  })

  it('add an existing user when they sign in with the invited address', async () => {
    const { app } = await cloudApp()
    const { id, owner } = await team(app)
    await user(app, 'later@example.com')
    await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'LATER@example.com', role: 'developer' })
    expect(await app.runtime.store.teams.roleOf(id, await userId(app, 'later@example.com'))).toBeUndefined()
    const cookies = await user(app, 'later@example.com')
    expect(await app.runtime.store.teams.roleOf(id, await userId(app, 'later@example.com'))).toBe('developer')
    const teams = (await call(app, 'GET', '/api/session', cookies)).json().teams.map((t: { name: string }) => t.name)
    expect(teams).toContain('Acme Docs')
  })

  it('are accepted with the mailed token by the invited address only, once; a cancelled one adds nobody', async () => {
    const { app, sink } = await cloudApp()
    const { id, owner, outsider } = await team(app)
    await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'tok@example.com', role: 'developer' })
    const token = tokenIn(await sink.next('tok@example.com'), 'invitations')

    const wrongUser = await call(app, 'POST', '/api/invitations/accept', outsider, { token })
    expect(wrongUser.statusCode).toBe(403)
    expect(await app.runtime.store.teams.roleOf(id, await userId(app, 'out@example.com'))).toBeUndefined()
    expect((await call(app, 'POST', '/api/invitations/accept', undefined, { token })).statusCode).toBe(401)

    // An unverified account of the invited address: the token proves the mailbox.
    await app.runtime.store.users.create({ email: 'tok@example.com', password: PASSWORD, role: 'member', verified: false })
    const invitee = await user(app, 'tok@example.com')
    const accepted = await call(app, 'POST', '/api/invitations/accept', invitee, { token })
    expect(accepted.statusCode).toBe(200)
    expect(accepted.json()).toMatchObject({ id, name: 'Acme Docs', role: 'developer' })
    expect((await app.runtime.store.users.byEmail('tok@example.com'))!.emailVerified).toBe(true)
    expect((await call(app, 'POST', '/api/invitations/accept', invitee, { token })).statusCode).toBe(400)

    const cancelled = await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'gone@example.com', role: 'developer' })
    const cancel = await call(app, 'DELETE', `/api/teams/${id}/invitations/${cancelled.json().id}`, owner)
    expect(cancel.statusCode).toBe(200)
    expect((await call(app, 'DELETE', `/api/teams/${id}/invitations/${cancelled.json().id}`, owner)).statusCode).toBe(404)
    await user(app, 'gone@example.com')
    expect(await app.runtime.store.teams.roleOf(id, await userId(app, 'gone@example.com'))).toBeUndefined()
  })

  it('are read from the mailed token without a session: team, address, role; a used, cancelled or expired one answers 400 as accepting does', async () => {
    const { app, sink } = await cloudApp()
    const { id, owner } = await team(app)
    const peek = (token: string) => call(app, 'POST', '/api/invitations/peek', undefined, { token })
    const invited = await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'new@example.com', role: 'admin' })
    const token = tokenIn(await sink.next('new@example.com'), 'invitations')

    const read = await peek(token)
    expect(read.statusCode, read.body).toBe(200)
    expect(read.json()).toEqual({ teamName: 'Acme Docs', email: 'new@example.com', role: 'admin', expiresAt: invited.json().expiresAt })
    // Reading it changes nothing: it is still pending and still accepted.
    expect(await app.runtime.store.invitations.pending(id)).toHaveLength(1)

    const invalid = 'This invitation is not valid: it was accepted or cancelled, has expired, or was replaced by a newer one.'
    for (const unknown of ['no-such-token', `${token}x`]) expect((await peek(unknown)).json()).toEqual({ error: 'validation_error', message: invalid })
    expect((await call(app, 'POST', '/api/invitations/peek', undefined, {})).statusCode).toBe(400)

    await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'late@example.com', role: 'developer' })
    const lateToken = tokenIn(await sink.next('late@example.com'), 'invitations')
    await sqlOf(app.runtime.store).run("UPDATE invitations SET expires_at = '2000-01-01T00:00:00.000Z' WHERE email = 'late@example.com'")
    const expired = await peek(lateToken)
    expect(expired.statusCode).toBe(400)
    expect(expired.json().message).toBe(invalid)

    // Signing in with the invited address joins the team: the link is used.
    await user(app, 'new@example.com')
    expect(await app.runtime.store.teams.roleOf(id, await userId(app, 'new@example.com'))).toBe('admin')
    const used = await peek(token)
    expect(used.statusCode).toBe(400)
    expect(used.json()).toEqual({ error: 'validation_error', message: invalid })

    await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'gone@example.com', role: 'developer' })
    const goneToken = tokenIn(await sink.next('gone@example.com'), 'invitations')
    const gone = (await app.runtime.store.invitations.pending(id)).find((i) => i.email === 'gone@example.com')!
    await call(app, 'DELETE', `/api/teams/${id}/invitations/${gone.id}`, owner)
    expect((await peek(goneToken)).statusCode).toBe(400)
  })

  it('are read under the anonymous rate limit of the caller\'s address', async () => {
    const app = await buildTestApp({ mode: 'cloud', rateLimit: { anonymous: 2, keyed: 0, windowSeconds: 60 } })
    const peek = () => app.inject({ method: 'POST', url: '/api/invitations/peek', payload: { token: 'guess' } })
    expect((await peek()).statusCode).toBe(400)
    expect((await peek()).statusCode).toBe(400)
    const limited = await peek()
    expect(limited.statusCode).toBe(429)
    expect(limited.json().error).toBe('rate_limit_exceeded')
  })

  it('refuse an existing member and a bad address with 400', async () => {
    const { app } = await cloudApp()
    const { id, owner } = await team(app)
    const member = await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'dev@example.com', role: 'developer' })
    expect(member.statusCode).toBe(400)
    const bad = await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'nobody', role: 'developer' })
    expect(bad.statusCode).toBe(400)
    const role = await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'x@example.com', role: 'owner' })
    expect(role.statusCode).toBe(400)
  })

  it('count toward the plan\'s member limit while pending: a pro team holds 10, invitations included', async () => {
    const { app } = await cloudApp()
    const { id, owner } = await team(app)
    // Owner, admin and developer are 3 of 10: 7 invitations fit.
    const ids: number[] = []
    for (let i = 1; i <= 7; i++) {
      const response = await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: `p${i}@example.com`, role: 'developer' })
      expect(response.statusCode, response.body).toBe(201)
      ids.push(response.json().id)
    }
    const over = await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'p8@example.com', role: 'developer' })
    expect(over.statusCode).toBe(403)
    expect(over.json().message).toContain('allows 10 members, pending invitations included')
    // Inviting a pending address again renews it; it takes no second place.
    expect((await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'p1@example.com', role: 'admin' })).statusCode).toBe(201)
    await call(app, 'DELETE', `/api/teams/${id}/invitations/${ids[6]}`, owner)
    expect((await call(app, 'POST', `/api/teams/${id}/invitations`, owner, { email: 'p8@example.com', role: 'developer' })).statusCode).toBe(201)
  })
})

describe('deleting a teamspace', () => {
  it('removes its private libraries through the library removal path, then the team with its keys', async () => {
    const { app } = await cloudApp()
    const { id, owner, developer } = await team(app)
    const { store } = app.runtime
    await seedLibrary(app, '/acme/internal', {
      'docs/deploy.md': '# Deploying\n\n## Roll out\n\nRun the deploy script with the stage name to roll the service out.\n\n```sh\n./deploy.sh staging\n```\n',
    })
    await seedLibrary(app, '/acme/runbook', {
      'docs/oncall.md': '# On call\n\n## Page someone\n\nUse the pager command with the team name to page whoever is on call.\n\n```sh\npager page platform\n```\n',
    })
    await sqlOf(store).run('UPDATE libraries SET team_pk = ?, is_private = TRUE WHERE id IN (?, ?)', [id, '/acme/internal', '/acme/runbook'])
    const devKey = (await call(app, 'POST', `/api/teams/${id}/keys`, developer, { name: 'k' })).json().key as string

    // A library being processed keeps the whole team, every library included.
    const runbook = (await store.libraries.byId('/acme/runbook'))!
    const job = await store.jobs.enqueue({ kind: 'ingest', libraryPk: runbook.pk, versionPk: (await store.libraries.version(runbook.pk, ''))!.pk })
    expect((await store.jobs.claimNext(testClaimer))?.pk).toBe(job.pk)
    const busy = await call(app, 'DELETE', `/api/teams/${id}`, owner)
    expect(busy.statusCode).toBe(409)
    expect(busy.json().error).toBe('library_busy')
    expect(await store.libraries.byId('/acme/internal')).toBeDefined()
    expect(await store.teams.byPk(id)).toBeDefined()
    await store.jobs.fail(heldByTest(job.pk), 'internal_error', 'test over')

    const deleted = await call(app, 'DELETE', `/api/teams/${id}`, owner)
    expect(deleted.statusCode, deleted.body).toBe(200)
    expect(deleted.json()).toEqual({ removed: 'Acme Docs', libraries: ['/acme/internal', '/acme/runbook'] })
    expect(await store.libraries.byId('/acme/internal')).toBeUndefined()
    expect(await store.libraries.byId('/acme/runbook')).toBeUndefined()
    expect(await sqlOf(store).get('SELECT count(*) AS n FROM snippet_sets')).toEqual({ n: 0 })
    const refused = await app.inject({ method: 'GET', url: '/api/v2/libs/search?libraryName=a&query=b', headers: { authorization: `Bearer ${devKey}` } })
    expect(refused.statusCode).toBe(401)
  })
})
