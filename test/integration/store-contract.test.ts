/**
 * The store's contract, held by both databases it runs on: SQLite in the data directory and a real
 * PostgreSQL (DATABASE_URL). Every repository is exercised through the Store interface only, so
 * what passes here behaves the same whichever database an install chose.
 */
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it, onTestFinished } from 'vitest'
import { LecternError } from '../../src/errors.js'
import { CHUNK_BYTES } from '../../src/store/input-files.js'
import type { NewSnippet } from '../../src/store/snippets.js'
import { openStore, sqlOf, type Store } from '../../src/store/index.js'
import { freshDatabase, freshStore, sameDatabase, TEST_SECRET_KEY, type StoreKind } from '../helpers/stores.js'
import { pollUntil } from '../helpers/poll.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { testClaimer, heldByTest } from '../helpers/jobs.js'

const serverDefer = suiteTeardown()
const open = (kind: StoreKind) => freshStore(kind, onTestFinished, serverDefer)

const snippet = (n: number): NewSnippet => ({
  kind: n % 2 === 0 ? 'code' : 'info',
  title: `Snippet ${n}`,
  description: `About ${n}`,
  breadcrumb: 'Guide > Part',
  pageTitle: `Page ${n % 3}`,
  language: n % 2 === 0 ? 'ts' : '',
  body: n % 2 === 0 ? JSON.stringify([{ language: 'ts', code: `const n = ${n} // é ✓` }]) : `Text ${n} — ünïcode`,
  source: `docs/page-${n % 3}.md#part-${n}`,
  tokens: 10 + n,
  hash: `hash-${n}`,
  includes: n === 2 ? ['src/example.ts'] : [],
})

async function liveLibrary(store: Store, id: string, snippets = 4) {
  const { library, version } = await store.libraries.create({ id, title: id.split('/')[2], sourceKind: 'github', sourceUrl: `https://github.com${id}` })
  const set = await store.snippets.createSet(version.pk, { provider: 'hash', model: 'hash-v1', dimensions: 256 })
  await store.snippets.insert(set.pk, Array.from({ length: snippets }, (_, n) => snippet(n)))
  await store.snippets.finalizeSet(set.pk, version.pk, { tokens: 100, snippets, commitSha: 'abc123' })
  return { library, version, set }
}

describe.each<StoreKind>(['sqlite', 'postgres'])('the store on %s', (kind) => {
  it('creates, verifies and revokes API keys, keeping only their hash', async () => {
    const store = await open(kind)
    const created = await store.keys.create('ci')
    expect((await store.keys.verify(created.key))?.name).toBe('ci')
    expect(await store.keys.verify(`${created.key.slice(0, -1)}${created.key.endsWith('a') ? 'b' : 'a'}`)).toBeUndefined()
    expect((await store.keys.list()).map((k) => k.name)).toEqual(['ci'])
    await store.keys.revoke(created.id)
    expect(await store.keys.verify(created.key)).toBeUndefined()
    await expect(store.keys.revoke(9999)).rejects.toMatchObject({ code: 'key_not_found' })
  })

  it('keeps libraries, versions and renames with redirects, and refuses a taken ID', async () => {
    const store = await open(kind)
    const { library } = await store.libraries.create({ id: '/acme/widgets', title: 'Widgets', sourceKind: 'github', sourceUrl: 'https://github.com/acme/widgets', isPrivate: true, options: { depth: 2 } })
    expect(library).toMatchObject({ id: '/acme/widgets', isPrivate: true, options: { depth: 2 } })
    await expect(store.libraries.create({ id: '/acme/widgets', title: 'Again', sourceKind: 'github', sourceUrl: 'https://github.com/acme/widgets' })).rejects.toMatchObject({ code: 'library_exists' })
    const v2 = await store.libraries.ensureVersion(library.pk, 'v2', 'Version 2')
    expect(await store.libraries.ensureVersion(library.pk, 'v2')).toMatchObject({ pk: v2.pk })
    expect((await store.libraries.versions(library.pk)).map((v) => v.tag).sort()).toEqual(['', 'v2'])
    const renamed = await store.libraries.rename('/acme/widgets', '/acme/gadgets')
    expect(renamed.id).toBe('/acme/gadgets')
    expect(await store.libraries.redirectOf('/acme/widgets')).toBe('/acme/gadgets')
    await store.libraries.rename('/acme/gadgets', '/acme/tools')
    expect(await store.libraries.redirectOf('/acme/widgets')).toBe('/acme/tools')
    const updated = await store.libraries.update(library.pk, { title: 'Tools', isPrivate: false })
    expect(updated).toMatchObject({ title: 'Tools', isPrivate: false })
    expect((await store.libraries.byId('/acme/tools'))?.pk).toBe(library.pk)
  })

  it('builds a snippet set, makes it live, reads its pages in order and replaces it with the next', async () => {
    const store = await open(kind)
    const { version, set } = await liveLibrary(store, '/acme/docs', 6)
    expect((await store.snippets.set(set.pk))?.status).toBe('live')
    expect(await store.snippets.count(set.pk)).toBe(6)
    const all = await store.snippets.allOfSet(set.pk)
    expect(all.map((s) => s.title)).toEqual(['Snippet 0', 'Snippet 1', 'Snippet 2', 'Snippet 3', 'Snippet 4', 'Snippet 5'])
    expect(all[2]).toMatchObject({ includes: ['src/example.ts'], body: snippet(2).body })
    expect(all[1].body).toBe('Text 1 — ünïcode')
    expect(await store.snippets.insert(set.pk, [snippet(1), snippet(9)])).toEqual([null, expect.any(Number)])
    const pages = await store.snippets.pagesOfSet(set.pk)
    expect(pages.length).toBeGreaterThan(0)
    const next = await store.snippets.createSet(version.pk, { provider: 'hash', model: 'hash-v1', dimensions: 256 })
    await store.snippets.insert(next.pk, [snippet(7)])
    expect(await store.snippets.finalizeSet(next.pk, version.pk, { tokens: 17, snippets: 1, commitSha: null })).toBe(set.pk)
    expect((await store.snippets.set(set.pk))?.status).toBe('retired')
    expect((await store.libraries.versionByPk(version.pk))?.currentSet).toBe(next.pk)
  })

  it('queues one active job per version, claims the oldest first, and ends it once', async () => {
    const store = await open(kind)
    const { library, version } = await liveLibrary(store, '/acme/jobs')
    const first = await store.jobs.enqueue({ kind: 'refresh', libraryPk: library.pk, versionPk: version.pk, payload: { why: 'test' } })
    await expect(store.jobs.enqueue({ kind: 'refresh', libraryPk: library.pk, versionPk: version.pk })).rejects.toMatchObject({ code: 'library_busy' })
    const other = await store.jobs.enqueue({ kind: 'backup' })
    const claimed = await store.jobs.claimNext(testClaimer)
    expect(claimed).toMatchObject({ pk: first.pk, state: 'running', payload: { why: 'test' } })
    expect((await store.jobs.claimNext(testClaimer))?.pk).toBe(other.pk)
    expect(await store.jobs.claimNext(testClaimer)).toBeUndefined()
    await store.jobs.succeed(heldByTest(first.pk), 'done', 2)
    expect(await store.jobs.byPk(first.pk)).toMatchObject({ state: 'succeeded', statusMessage: 'done' })
    // An ended job is not cancelled after the fact.
    await store.jobs.requestCancel(first.pk, 'admin')
    expect(await store.jobs.cancelRequester(first.pk)).toBeUndefined()
    // The version is free again once its job ended.
    expect((await store.jobs.enqueue({ kind: 'refresh', libraryPk: library.pk, versionPk: version.pk })).state).toBe('queued')
  })

  it('queues a job asked to run again once more when it ends, without its one-off token, unless it was cancelled', async () => {
    const store = await open(kind)
    const { library, version } = await liveLibrary(store, '/acme/pushed')
    const job = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk, payload: { spec: 'git' }, secret: 'sealed-token' })
    // Only a running job can be asked: a queued one will read the push anyway.
    expect(await store.jobs.runAgain(version.pk)).toBe(false)
    await store.jobs.claimNext(testClaimer)
    expect(await store.jobs.runAgain(version.pk)).toBe(true)
    await store.jobs.succeed(heldByTest(job.pk))
    const again = await store.jobs.activeForVersion(version.pk)
    expect(again).toMatchObject({ kind: 'ingest', state: 'queued', payload: { spec: 'git' }, secret: null, libraryPk: library.pk })
    expect(again!.pk).toBeGreaterThan(job.pk)
    // The second run was not asked to run again: it ends for good.
    await store.jobs.claimNext(testClaimer)
    await store.jobs.fail(heldByTest(again!.pk), 'source_unreachable', 'gone')
    expect(await store.jobs.activeForVersion(version.pk)).toBeUndefined()
    // A cancelled job is not run again, whoever asked; nor one asked to cancel that ended otherwise.
    for (const end of ['cancelled', 'source_unreachable']) {
      const third = await store.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk })
      await store.jobs.claimNext(testClaimer)
      expect(await store.jobs.runAgain(version.pk)).toBe(true)
      await store.jobs.requestCancel(third.pk, 'admin')
      await store.jobs.fail(heldByTest(third.pk), end, 'ended')
      expect(await store.jobs.activeForVersion(version.pk)).toBeUndefined()
    }
    // Only ingests: another kind of job on the version is not marked.
    await store.jobs.enqueue({ kind: 'import', libraryPk: library.pk, versionPk: version.pk })
    await store.jobs.claimNext(testClaimer)
    expect(await store.jobs.runAgain(version.pk)).toBe(false)
  })

  it('seals a git connection\'s webhook secret, and records each webhook delivery once', async () => {
    const store = await open(kind)
    const scope = { teamPk: null }
    await store.connections.create(scope, { kind: 'git', name: 'gitlab', baseUrl: 'https://gitlab.example.com', token: 'glpat-token' })
    await store.connections.create(scope, { kind: 'notion', name: 'ws', baseUrl: 'https://api.notion.com', token: 'secret_notion' })
    expect(await store.connections.webhookSecret(scope, 'gitlab')).toBeNull()
    expect((await store.connections.setWebhookSecret(scope, 'gitlab', 'a-webhook-secret-of-32-characters')).webhook).toBe(true)
    expect(await store.connections.webhookSecret(scope, 'gitlab')).toBe('a-webhook-secret-of-32-characters')
    expect((await store.connections.get(scope, 'gitlab'))?.webhook).toBe(true)
    const raw = await sqlOf(store).all<{ webhook_secret_sealed: string }>("SELECT webhook_secret_sealed FROM connections WHERE name = 'gitlab'")
    expect(raw[0].webhook_secret_sealed).not.toContain('a-webhook-secret')
    await expect(store.connections.setWebhookSecret(scope, 'gitlab', 'short')).rejects.toMatchObject({ code: 'validation_error' })
    await expect(store.connections.setWebhookSecret(scope, 'ws', 'a-webhook-secret-of-32-characters')).rejects.toMatchObject({ code: 'validation_error' })
    await expect(store.connections.setWebhookSecret(scope, 'nope', 'a-webhook-secret-of-32-characters')).rejects.toMatchObject({ code: 'not_found' })
    expect((await store.connections.setWebhookSecret(scope, 'gitlab', null)).webhook).toBe(false)
    expect(await store.connections.webhookSecret(scope, 'gitlab')).toBeNull()

    expect(await store.webhookDeliveries.claim('github', ['delivery:1', 'body:a'])).toBe(true)
    expect(await store.webhookDeliveries.claim('github', ['delivery:1', 'body:b'])).toBe(false)
    // All keys or none: the refused claim did not keep body:b.
    expect(await store.webhookDeliveries.claim('github', ['delivery:2', 'body:b'])).toBe(true)
    expect(await store.webhookDeliveries.claim('github', ['delivery:3', 'body:a'])).toBe(false)
    expect(await store.webhookDeliveries.claim('gitea', ['delivery:1', 'body:a'])).toBe(true)
    // A claim inside a transaction that goes on after a refused one (PostgreSQL aborts a transaction on a failed insert otherwise).
    await store.transaction(async () => {
      expect(await store.webhookDeliveries.claim('github', ['delivery:1'])).toBe(false)
      expect(await store.webhookDeliveries.claim('github', ['delivery:4'])).toBe(true)
    })
    // A released claim (its work failed) is taken again; past its days a delivery is forgotten.
    await store.webhookDeliveries.release('github', ['delivery:4'])
    expect(await store.webhookDeliveries.claim('github', ['delivery:4'])).toBe(true)
    expect(await store.webhookDeliveries.claim('github', ['delivery:1', 'body:a'], new Date(Date.now() + 31 * 86_400_000))).toBe(true)
  })

  it('keeps teams, members within the plan, and invitations', async () => {
    const store = await open(kind)
    const owner = await store.users.create({ email: 'Owner@Example.com', password: 'correct horse battery', verified: true })
    const member = await store.users.create({ email: 'member@example.com', password: 'correct horse battery', verified: true })
    expect((await store.users.byEmail('owner@example.com'))?.id).toBe(owner.id)
    await expect(store.users.create({ email: 'OWNER@example.com', password: 'another password!' })).rejects.toBeInstanceOf(LecternError)
    const team = await store.teams.create({ name: 'acme', ownerUserId: owner.id, plan: 'free' })
    await expect(store.teams.addMember(team.id, member.id, 'developer', () => 1)).rejects.toBeInstanceOf(LecternError)
    await store.teams.addMember(team.id, member.id, 'developer', () => 5)
    expect((await store.teams.members(team.id)).map((m) => m.role).sort()).toEqual(['developer', 'owner'])
    expect(await store.teams.roleOf(team.id, member.id)).toBe('developer')
    const { invitation, token } = await store.invitations.upsert({ teamId: team.id, email: 'new@example.com', role: 'admin', invitedBy: owner.id, ttlMs: 60_000 })
    expect((await store.invitations.byToken(token))?.id).toBe(invitation.id)
    expect((await store.invitations.pending(team.id)).map((i) => i.email)).toEqual(['new@example.com'])
  })

  it('signs users in with sessions that end, and seals connection tokens', async () => {
    const store = await open(kind)
    const user = await store.users.create({ email: 'admin@example.com', password: 'correct horse battery', role: 'admin', verified: true })
    expect((await store.users.verify('admin@example.com', 'correct horse battery'))?.id).toBe(user.id)
    expect(await store.users.verify('admin@example.com', 'wrong')).toBeUndefined()
    const session = await store.users.startSession(user.id)
    expect((await store.users.sessionUser(session.token))?.id).toBe(user.id)
    await store.users.endSession(session.token)
    expect(await store.users.sessionUser(session.token)).toBeUndefined()
    await store.connections.create({ teamPk: null }, { kind: 'git', name: 'gh', baseUrl: 'https://github.com', token: 'ghp_secret' })
    expect(await store.connections.token({ teamPk: null }, 'gh')).toBe('ghp_secret')
    await expect(store.connections.create({ teamPk: null }, { kind: 'git', name: 'gh', baseUrl: 'https://github.com', token: 'x' })).rejects.toMatchObject({ code: 'validation_error' })
  })

  it('rolls a failed transaction back whole, and keeps settings', async () => {
    const store = await open(kind)
    await store.settings.set('access.restrictNewLibraries', true)
    await expect(
      store.transaction(async () => {
        await store.libraries.create({ id: '/acme/gone', title: 'Gone', sourceKind: 'github', sourceUrl: 'https://github.com/acme/gone' })
        await store.settings.set('access.restrictNewLibraries', false)
        throw new Error('undone')
      }),
    ).rejects.toThrow('undone')
    expect(await store.libraries.byId('/acme/gone')).toBeUndefined()
    expect(await store.settings.get('access.restrictNewLibraries')).toBe(true)
    expect(await store.migrations()).toContain('0024_one_active_job_per_version')
  })

  it('records replicas with a heartbeat, and forgets one not seen for a while', async () => {
    const store = await open(kind)
    const first = { id: 'first', host: 'a.example', pid: 101, appVersion: '0.1.0' }
    const second = { id: 'second', host: 'b.example', pid: 202, appVersion: '0.1.0' }
    const longAgo = new Date(Date.now() - 60_000).toISOString()
    await store.replicas.register(first, longAgo)
    await store.replicas.register(second, longAgo)
    expect((await store.replicas.live(longAgo)).map((r) => [r.id, r.host, r.pid])).toEqual([
      ['first', 'a.example', 101],
      ['second', 'b.example', 202],
    ])
    expect(await store.replicas.beat('first')).toBe(true)
    // Seen before this moment counts as gone: the next registration removes its row.
    const now = new Date(Date.now() + 1000).toISOString()
    expect(await store.replicas.live(now)).toEqual([])
    await store.replicas.register(second, now)
    expect(await store.replicas.beat('first')).toBe(false)
    expect((await store.replicas.live(longAgo)).map((r) => r.id)).toEqual(['second'])
    await store.replicas.remove('second')
    expect(await store.replicas.live(longAgo)).toEqual([])
  })

  it("holds a running job by its owner's lease: only the owner renews or ends it, and a lapsed one is queued again once", async () => {
    const store = await open(kind)
    const { library, version } = await liveLibrary(store, '/acme/leased')
    const job = await store.jobs.enqueue({ kind: 'refresh', libraryPk: library.pk, versionPk: version.pk })
    const soon = new Date(Date.now() + 60_000).toISOString()
    const a = { owner: 'runner-a', leaseUntil: soon }
    const claimed = (await store.jobs.claimNext(a))!
    expect(claimed).toMatchObject({ pk: job.pk, state: 'running', owner: 'runner-a', leaseUntil: soon })
    expect(await store.jobs.renewLease(job.pk, 'runner-b', soon)).toBe(false)
    await expect(store.jobs.succeed({ pk: job.pk, owner: 'runner-b' })).rejects.toThrow(`Job ${job.pk} is no longer held by this runner`)
    await expect(store.jobs.requireHeld(job.pk, 'runner-b')).rejects.toThrow('no longer held')
    await store.jobs.requireHeld(job.pk, 'runner-a')
    // Not lapsed yet: neither listed nor queued again by a runner that sees it lapsed later.
    expect(await store.jobs.lapsed(new Date().toISOString())).toEqual([])
    expect(await store.jobs.requeue(claimed, 'interrupted; queued again', new Date().toISOString())).toBe(false)
    // Its runner went quiet: the lease it renewed last ends in the past.
    const past = new Date(Date.now() - 1000).toISOString()
    expect(await store.jobs.renewLease(job.pk, 'runner-a', past)).toBe(true)
    const now = new Date().toISOString()
    expect((await store.jobs.lapsed(now)).map((j) => j.pk)).toEqual([job.pk])
    expect(await store.jobs.requeue(claimed, 'interrupted; queued again', now)).toBe(true)
    expect(await store.jobs.requeue(claimed, 'interrupted; queued again', now)).toBe(false)
    expect(await store.jobs.byPk(job.pk)).toMatchObject({ state: 'queued', owner: null, leaseUntil: null, statusMessage: 'interrupted; queued again' })
    // Taken over: the runner that lost it can neither renew nor end it, nor swap in what it built.
    const b = { owner: 'runner-b', leaseUntil: soon }
    expect(await store.jobs.claimNext(b)).toMatchObject({ pk: job.pk, owner: 'runner-b', attempts: 2 })
    expect(await store.jobs.renewLease(job.pk, 'runner-a', soon)).toBe(false)
    await expect(store.jobs.fail(claimed, 'internal_error', 'late')).rejects.toThrow('no longer held')
    await expect(store.jobs.requireHeld(job.pk, 'runner-a')).rejects.toThrow('no longer held')
    await store.jobs.succeed({ pk: job.pk, owner: 'runner-b' }, 'done')
    expect(await store.jobs.byPk(job.pk)).toMatchObject({ state: 'succeeded', owner: 'runner-b', leaseUntil: null })
    // Every running job, for a runner that knows it is the only one (SQLite's lock holder).
    const other = await store.jobs.enqueue({ kind: 'backup' })
    await store.jobs.claimNext(a)
    expect(await store.jobs.lapsed(now)).toEqual([])
    expect((await store.jobs.lapsed()).map((j) => j.pk)).toEqual([other.pk])
  })

  it('keeps a building set while a job of its version holds its lease', async () => {
    const store = await open(kind)
    const { library, version } = await liveLibrary(store, '/acme/leased')
    const soon = new Date(Date.now() + 60_000).toISOString()
    const job = await store.jobs.enqueue({ kind: 'refresh', libraryPk: library.pk, versionPk: version.pk })
    expect(await store.jobs.claimNext({ owner: 'runner', leaseUntil: soon })).toMatchObject({ pk: job.pk, owner: 'runner', leaseUntil: soon })
    const building = await store.snippets.createSet(version.pk, { provider: 'hash', model: 'hash-v1', dimensions: 256 })
    expect(await store.snippets.abandonedSets(new Date().toISOString())).toEqual([])
    // Once the lease has run out, nobody may still be writing the set.
    expect((await store.snippets.abandonedSets(new Date(Date.now() + 120_000).toISOString())).map((s) => s.pk)).toEqual([building.pk])
    await store.jobs.succeed({ pk: job.pk, owner: 'runner' })
    expect((await store.snippets.abandonedSets(new Date().toISOString())).map((s) => s.pk)).toEqual([building.pk])
  })

  it("keeps a real embedder's vectors with the rows, a page at a time, exactly as given", async () => {
    const store = await open(kind)
    const { version } = await store.libraries.create({ id: '/acme/vectors', title: 'vectors', sourceKind: 'github', sourceUrl: 'https://github.com/acme/vectors' })
    const set = await store.snippets.createSet(version.pk, { provider: 'ollama', model: 'nomic-embed-text', dimensions: 3 })
    const vectors = [new Float32Array([0.1, -2.5, 3e-8]), new Float32Array([1, 2, 3]), new Float32Array([Math.PI, Math.E, -0])]
    // The second snippet repeats the first (same hash): stored once, its vector with it.
    const pks = await store.snippets.insert(set.pk, [snippet(0), snippet(0), snippet(1), snippet(2)], [vectors[0]!, vectors[1]!, vectors[1]!, vectors[2]!])
    expect(pks[1]).toBeNull()
    const [a, , b, c] = pks as number[]
    expect(await store.snippets.vectorPage(set.pk, 0, 10)).toEqual([
      { pk: a, vector: vectors[0] },
      { pk: b, vector: vectors[1] },
      { pk: c, vector: vectors[2] },
    ])
    expect(await store.snippets.vectorPage(set.pk, a!, 1)).toEqual([{ pk: b, vector: vectors[1] }])
    expect(await store.snippets.vectorPage(set.pk, c!, 10)).toEqual([])
    // The rows read for answers never carry the vectors.
    expect(Object.keys((await store.snippets.allOfSet(set.pk))[0]!)).not.toContain('vector')

    expect(await store.snippets.lacksVectors(set.pk, 3)).toBe(false)
    expect(await store.snippets.lacksVectors(set.pk, 4)).toBe(true)
    await store.snippets.setVectors(set.pk, [{ pk: b!, vector: vectors[0]! }])
    expect((await store.snippets.vectorPage(set.pk, 0, 10)).map((row) => row.vector)).toEqual([vectors[0], vectors[0], vectors[2]])
    await store.snippets.setVectors(set.pk, null)
    expect((await store.snippets.vectorPage(set.pk, 0, 10)).map((row) => row.vector)).toEqual([null, null, null])
    expect(await store.snippets.lacksVectors(set.pk, 3)).toBe(true)
    // One row without its vector (a rebuild cut short) is enough to lack them.
    await store.snippets.setVectors(set.pk, [{ pk: a!, vector: vectors[0]! }, { pk: b!, vector: vectors[1]! }])
    expect(await store.snippets.lacksVectors(set.pk, 3)).toBe(true)
    // A hash-embedded set's rows hold none.
    const { set: hashed } = await liveLibrary(store, '/acme/hashed', 2)
    expect((await store.snippets.vectorPage(hashed.pk, 0, 10)).map((row) => row.vector)).toEqual([null, null])
  })

  it('keeps input files whole, in chunks, replaced only once the new one is stored', async () => {
    const store = await open(kind)
    const big = Buffer.alloc(CHUNK_BYTES * 2 + 5, 7)
    big.write('the end', big.length - 7)
    // Pieces that straddle chunk boundaries.
    expect(await store.inputFiles.put('imports/a/1.json', [big.subarray(0, 100), big.subarray(100, CHUNK_BYTES + 3), big.subarray(CHUNK_BYTES + 3)])).toBe(big.length)
    expect((await store.inputFiles.read('imports/a/1.json'))!.equals(big)).toBe(true)
    const file = path.join(await tmpDir(), 'copy')
    expect(await store.inputFiles.copyTo('imports/a/1.json', file)).toBe(true)
    expect(fs.readFileSync(file).equals(big)).toBe(true)
    await store.inputFiles.put('uploads/spec.yaml', [])
    expect(await store.inputFiles.read('uploads/spec.yaml')).toEqual(Buffer.alloc(0))
    await store.inputFiles.put('uploads/spec.yaml', [Buffer.from('openapi: 3.1.0\n')])
    expect((await store.inputFiles.list('uploads/')).map(({ name, bytes }) => ({ name, bytes }))).toEqual([{ name: 'uploads/spec.yaml', bytes: 15 }])

    // A put that fails part way leaves the file it was replacing as it was, and no partial rows.
    async function* failing() {
      yield Buffer.alloc(CHUNK_BYTES + 1, 1)
      throw new Error('the upload was cut off')
    }
    await expect(store.inputFiles.put('uploads/spec.yaml', failing())).rejects.toThrow('cut off')
    expect((await store.inputFiles.read('uploads/spec.yaml'))!.toString()).toBe('openapi: 3.1.0\n')
    expect(await store.inputFiles.removePartial(new Date(Date.now() + 1000).toISOString())).toBe(0)
    // A put whose process died: its chunks are not a file, and go once old enough.
    await sqlOf(store).run('INSERT INTO input_files (name, chunk, data, created_at) VALUES (?, 0, ?, ?)', ['partial/dead', Buffer.from('x'), '2026-01-01T00:00:00.000Z'])
    expect((await store.inputFiles.list('')).map((f) => f.name)).toEqual(['imports/a/1.json', 'uploads/spec.yaml'])
    expect(await store.inputFiles.removePartial('2026-01-01T00:00:00.000Z')).toBe(0)
    expect(await store.inputFiles.removePartial(new Date().toISOString())).toBe(1)

    expect(await store.inputFiles.remove('imports/a/1.json')).toBe(true)
    expect(await store.inputFiles.remove('imports/a/1.json')).toBe(false)
    expect(await store.inputFiles.read('imports/a/1.json')).toBeUndefined()
    expect(await store.inputFiles.copyTo('imports/a/1.json', file)).toBe(false)
    expect(await store.inputFiles.list('imports/')).toEqual([])
  })

  it('runs once-only work there and then when no other replica runs it', async () => {
    const store = await open(kind)
    expect(await store.exclusively('sweep', async () => 42)).toEqual({ ran: true, value: 42 })
    await expect(store.exclusively('sweep', async () => Promise.reject(new Error('sweep failed')))).rejects.toThrow('sweep failed')
    expect(await store.exclusively('sweep', async () => 43)).toEqual({ ran: true, value: 43 })
  })

  it('moves the catalogue version on a write of this process at once, and of another within a second', async () => {
    const store = await open(kind)
    const other = await sameDatabase(store, onTestFinished)
    const before = store.catalogVersion()
    await store.libraries.create({ id: '/acme/one', title: 'One', sourceKind: 'github', sourceUrl: 'https://github.com/acme/one' })
    const mine = store.catalogVersion()
    expect(mine).toBeGreaterThan(before)
    // Snippets, jobs and usage leave it alone.
    await store.jobs.enqueue({ kind: 'backup' })
    expect(store.catalogVersion()).toBe(mine)
    await other.libraries.create({ id: '/acme/two', title: 'Two', sourceKind: 'github', sourceUrl: 'https://github.com/acme/two' })
    const started = Date.now()
    while (store.catalogVersion() === mine && Date.now() - started < 1000) await sleep(10)
    expect(store.catalogVersion()).toBeGreaterThan(mine)
    expect(other.catalogVersion()).toBe(store.catalogVersion())
  })
})

/**
 * Two stores in one process stand for two replicas. On SQLite they would be two connections of one
 * thread, whose busy wait blocks the very event loop the lock holder needs: SQLite's own version,
 * across processes, is in test/unit/store.test.ts ("transactions across processes").
 */
describe('the store on postgres, two replicas', () => {
  it('runs write transactions of two processes one after the other, so a check and its write are never split', async () => {
    const store = await open('postgres')
    const other = await sameDatabase(store, onTestFinished)
    const { library } = await store.libraries.create({ id: '/acme/count', title: 'Count', sourceKind: 'github', sourceUrl: 'https://github.com/acme/count' })
    // Each reads the options, waits, then writes them increased: interleaved, one increment would be lost.
    const increment = (s: Store) =>
      s.transaction(async () => {
        const now = (await s.libraries.byPk(library.pk))!.options.count as number | undefined
        await sleep(20)
        await s.libraries.update(library.pk, { options: { count: (now ?? 0) + 1 } })
      })
    await Promise.all([increment(store), increment(other), increment(store), increment(other)])
    expect((await store.libraries.byPk(library.pk))!.options.count).toBe(4)
  })

  it('runs once-only work on one replica at a time, and lets another take it over when the first ends or its connection dies', async () => {
    const store = await open('postgres')
    const other = await sameDatabase(store, onTestFinished)
    let started!: () => void
    let finish!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    const holding = new Promise<void>((resolve) => (finish = resolve))
    const first = store.exclusively('sweep', async () => {
      started()
      await holding
      return 'first'
    })
    await running
    expect(await other.exclusively('sweep', async () => 'second')).toEqual({ ran: false })
    expect(await other.exclusively('prune', async () => 'another task')).toEqual({ ran: true, value: 'another task' })
    finish()
    expect(await first).toEqual({ ran: true, value: 'first' })
    expect(await other.exclusively('sweep', async () => 'second')).toEqual({ ran: true, value: 'second' })

    // The holder's connection dies (its replica was killed): the database lets go of the lock.
    let stalled!: () => void
    let unstall!: () => void
    const stalling = new Promise<void>((resolve) => (stalled = resolve))
    const dying = store.exclusively('sweep', async () => {
      stalled()
      await new Promise<void>((resolve) => (unstall = resolve))
    })
    await stalling
    expect(await other.exclusively('sweep', async () => 'second')).toEqual({ ran: false })
    await sqlOf(other).get(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid() AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    )
    await pollUntil('the lock to pass on', async () => ((await other.exclusively('sweep', async () => 'taken over')).ran ? true : undefined))
    // The stalled holder wakes up to a dead connection: its work is done, the connection is not reused.
    unstall()
    expect(await dying).toEqual({ ran: true, value: undefined })
    expect(await store.exclusively('sweep', async () => 'again')).toEqual({ ran: true, value: 'again' })
  })

  it('gives each queued job to one of two runners claiming at once, without either waiting for the other', async () => {
    const store = await open('postgres')
    const other = await sameDatabase(store, onTestFinished)
    const queued = new Set<number>()
    for (let i = 0; i < 24; i++) queued.add((await store.jobs.enqueue({ kind: 'backup' })).pk)
    const soon = new Date(Date.now() + 60_000).toISOString()
    const claimAll = async (s: Store, owner: string) => {
      const mine: number[] = []
      for (let job = await s.jobs.claimNext({ owner, leaseUntil: soon }); job; job = await s.jobs.claimNext({ owner, leaseUntil: soon })) mine.push(job.pk)
      return mine
    }
    // A claim whose row is still locked (its transaction has not ended) is skipped, not waited for.
    await store.transaction(async () => {
      const mine = (await store.jobs.claimNext({ owner: 'a', leaseUntil: soon }))!
      const theirs = await Promise.race([other.jobs.claimNext({ owner: 'b', leaseUntil: soon }), sleep(3000).then(() => 'waited' as const)])
      expect(theirs).toMatchObject({ pk: mine.pk + 1, owner: 'b' })
    })
    const [a, b, c] = await Promise.all([claimAll(store, 'a'), claimAll(other, 'b'), claimAll(other, 'c')])
    const claimed = [...a, ...b, ...c]
    expect(claimed.length).toBe(22)
    expect(new Set(claimed).size).toBe(22)
    expect((await store.jobs.list({ states: ['running'] })).map((job) => job.pk).sort((x, y) => x - y)).toEqual([...queued])
  })

  it('refuses to start a replica whose LECTERN_SECRET_KEY is missing, malformed or not the one the secrets were sealed with', async () => {
    const store = await open('postgres')
    const url = store.database.where
    const dir = await tmpDir('lectern-store-')
    const opening = (key?: string) => openStore(dir, { databaseUrl: url, env: key === undefined ? {} : { LECTERN_SECRET_KEY: key } })
    await expect(opening()).rejects.toThrow(/LECTERN_SECRET_KEY is required with DATABASE_URL/)
    await expect(opening('abc')).rejects.toThrow(/must be 64 hex characters.*3 characters/)
    await expect(opening('z'.repeat(64))).rejects.toThrow(/not all hex/)
    const other = opening('b2'.repeat(32))
    await expect(other).rejects.toMatchObject({ code: 'secret_key_mismatch' })
    await expect(other).rejects.not.toThrow(/b2b2/)
  })

  it('says which database it cannot reach, and why, without the password', async () => {
    const url = 'postgres://lectern:hunter2@127.0.0.1:1/lectern'
    const opening = openStore(await tmpDir('lectern-store-'), { databaseUrl: url, env: { LECTERN_SECRET_KEY: TEST_SECRET_KEY } })
    await expect(opening).rejects.toMatchObject({ code: 'database_unreachable', message: expect.stringContaining('postgres://lectern:***@127.0.0.1:1/lectern') })
    await expect(opening).rejects.not.toThrow(/hunter2/)
  })

  // The window it guards (both read no canary, then both seal one) is narrow: this run may pass without the guard too.
  it('lets one of two replicas starting together on a new database with different keys start, and refuses the other', async () => {
    const url = await freshDatabase(onTestFinished, serverDefer)
    const opening = (key: string) => tmpDir('lectern-store-').then((dir) => openStore(dir, { databaseUrl: url, env: { LECTERN_SECRET_KEY: key } }))
    const results = await Promise.allSettled([opening('d4'.repeat(32)), opening('e5'.repeat(32))])
    for (const result of results) if (result.status === 'fulfilled') onTestFinished(() => result.value.close())
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'secret_key_mismatch' } })
  })
})

