import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createSecretBox } from '../../src/secrets/cipher.js'
import { openConnection } from '../../src/store/db.js'
import { openStore, sqliteOf, type Store } from '../../src/store/index.js'
import { UsageRecorder } from '../../src/usage/recorder.js'
import { testClaimer } from '../helpers/jobs.js'

let dirs: string[] = []
let stores: Store[] = []
async function freshStore(): Promise<Store> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-store-'))
  dirs.push(dir)
  const store = await openStore(dir)
  stores.push(store)
  return store
}
afterEach(async () => {
  for (const s of stores) await s.close()
  dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }))
  stores = []
  dirs = []
})

describe('data directory', () => {
  it('creates secret.key with mode 0600 and keeps it across opens', async () => {
    const store = await freshStore()
    const key = fs.readFileSync(store.paths.secretKey)
    expect(key).toHaveLength(32)
    expect(fs.statSync(store.paths.secretKey).mode & 0o777).toBe(0o600)
    await store.close()
    const again = await openStore(store.paths.root)
    stores.push(again)
    expect(fs.readFileSync(again.paths.secretKey)).toEqual(key)
  })

  it('runs every migration once, even when opened twice at the same time', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-store-'))
    dirs.push(dir)
    const [a, b] = await Promise.all([openStore(dir), openStore(dir)])
    stores.push(a, b)
    const names = sqliteOf(a).prepare('SELECT name FROM knex_migrations').pluck().all()
    expect(names).toEqual([...new Set(names)])
    expect(names.length).toBeGreaterThanOrEqual(5)
  })
})

describe('API keys', () => {
  it('stores only a hash, verifies the key, and refuses revoked, unknown and malformed keys', async () => {
    const store = await freshStore()
    const created = await store.keys.create('ci')
    expect(created.key).toMatch(/^lct_[0-9A-Za-z]{40}$/)
    const raw = fs.readFileSync(store.paths.database)
    expect(raw.includes(Buffer.from(created.key))).toBe(false)
    expect(sqliteOf(store).prepare('SELECT hash FROM api_keys').pluck().get()).not.toContain(created.key.slice(4))
    expect((await store.keys.verify(created.key))?.name).toBe('ci')
    expect(await store.keys.verify(`${created.key.slice(0, -1)}${created.key.endsWith('a') ? 'b' : 'a'}`)).toBeUndefined()
    expect(await store.keys.verify('lct_short')).toBeUndefined()
    expect(await store.keys.verify(created.key.replace('lct_', 'xyz_'))).toBeUndefined()
    await store.keys.revoke(created.id)
    expect(await store.keys.verify(created.key)).toBeUndefined()
    expect((await store.keys.list())[0].revokedAt).not.toBeNull()
    expect(JSON.stringify(await store.keys.list())).not.toContain(created.key)
  })

  it('rejects empty names and unknown IDs', async () => {
    const store = await freshStore()
    await expect(store.keys.create('  ')).rejects.toThrowError(expect.objectContaining({ code: 'validation_error' }))
    await expect(store.keys.revoke(99)).rejects.toThrowError(expect.objectContaining({ code: 'key_not_found' }))
  })
})

describe('secret box', () => {
  it('round-trips, uses a fresh IV each time and refuses tampered or foreign values', () => {
    const box = createSecretBox(Buffer.alloc(32, 7))
    const sealed = box.seal('ghp_token')
    expect(sealed).not.toContain('ghp_token')
    expect(box.seal('ghp_token')).not.toBe(sealed)
    expect(box.open(sealed)).toBe('ghp_token')
    const parts = sealed.split('.')
    const flipped = Buffer.from(parts[3], 'base64url')
    flipped[0] ^= 1
    expect(() => box.open([...parts.slice(0, 3), flipped.toString('base64url')].join('.'))).toThrow()
    expect(() => createSecretBox(Buffer.alloc(32, 8)).open(sealed)).toThrow()
    expect(() => box.open('plain')).toThrow()
  })
})

describe('libraries', () => {
  it('renames with a redirect chain and lets a new library take a redirected ID back', async () => {
    const store = await freshStore()
    await store.libraries.create({ id: '/a/one', title: 'one', sourceKind: 'github', sourceUrl: 'x' })
    await store.libraries.rename('/a/one', '/a/two')
    await store.libraries.rename('/a/two', '/a/three')
    expect(await store.libraries.redirectOf('/a/one')).toBe('/a/three')
    expect(await store.libraries.redirectOf('/a/two')).toBe('/a/three')
    await expect(store.libraries.rename('/a/three', '/a/three')).rejects.toThrowError(expect.objectContaining({ code: 'validation_error' }))
    await store.libraries.create({ id: '/a/one', title: 'new one', sourceKind: 'github', sourceUrl: 'y' })
    expect(await store.libraries.redirectOf('/a/one')).toBeUndefined()
    await expect(store.libraries.create({ id: '/a/one', title: 'dup', sourceKind: 'github', sourceUrl: 'z' })).rejects.toThrowError(
      expect.objectContaining({ code: 'library_exists' }),
    )
  })
})

describe('the catalogue version', () => {
  it('moves on every change to libraries, versions, sets and redirects, from any connection, and not on snippets, jobs or usage', async () => {
    const store = await freshStore()
    const other = await openStore(store.paths.root)
    stores.push(other)
    let seen = store.catalogVersion()
    const moved = () => {
      const now = store.catalogVersion()
      expect(other.catalogVersion()).toBe(now)
      const changed = now !== seen
      seen = now
      return changed
    }
    const { library, version } = await store.libraries.create({ id: '/a/cat', title: 'cat', sourceKind: 'github', sourceUrl: 'https://github.com/a/cat' })
    expect(moved()).toBe(true)
    const set = await other.snippets.createSet(version.pk, { provider: 'hash', model: 'hash-v1', dimensions: 8 })
    expect(moved()).toBe(true)

    // An ingest's own writes: its snippets, its job and the job's progress.
    const snippet = { kind: 'info' as const, title: 't', description: '', breadcrumb: '', pageTitle: '', language: '', body: 'b', source: 's', tokens: 1, hash: 'h' }
    await other.snippets.insert(set.pk, [snippet])
    const job = await other.jobs.enqueue({ kind: 'ingest', libraryPk: library.pk, versionPk: version.pk })
    await other.jobs.claimNext(testClaimer)
    await other.jobs.setStatus(job.pk, 'embedded 1 of 1 snippets')
    const usage = new UsageRecorder(other)
    usage.record(library.pk, 'curl', 'rest-txt')
    await usage.flush()
    expect(moved()).toBe(false)

    await other.snippets.finalizeSet(set.pk, version.pk, { tokens: 1, snippets: 1, commitSha: null })
    expect(moved()).toBe(true)
    await store.libraries.rename('/a/cat', '/a/renamed')
    expect(moved()).toBe(true)
    await other.snippets.dropSet(set.pk)
    expect(moved()).toBe(true)
  })

  it('is the committed one while another async context holds a transaction, whose uncommitted rows are not read either', async () => {
    const store = await freshStore()
    const before = store.catalogVersion()
    let inside!: () => void
    let release!: () => void
    const reached = new Promise<void>((resolve) => (inside = resolve))
    const held = new Promise<void>((resolve) => (release = resolve))
    const rolledBack = store.transaction(async () => {
      await store.libraries.create({ id: '/a/never', title: 'never', sourceKind: 'github', sourceUrl: 'https://github.com/a/never' })
      inside()
      await held
      throw new Error('rolled back')
    })
    await reached
    expect(store.catalogVersion()).toBe(before)
    const read = store.libraries.byId('/a/never')
    release()
    await expect(rolledBack).rejects.toThrow('rolled back')
    expect(await read).toBeUndefined()
    expect(store.catalogVersion()).toBe(before)
  })
})

describe('transactions across processes', () => {
  it('begin IMMEDIATE, so one that reads and then writes waits its turn instead of failing on a stale snapshot', async () => {
    const store = await freshStore()
    const other = openConnection(store.paths.database)
    try {
      other.pragma('busy_timeout = 0')
      const insert = (db: typeof other, key: string) => db.prepare("INSERT INTO settings (key, value, updated_at) VALUES (?, '1', '')").run(key)
      let othersError: unknown
      // Another process's write arrives between the transaction's read and its write.
      const readThenWrite = (key: string) => () => {
        sqliteOf(store).prepare('SELECT count(*) FROM settings').get()
        try {
          insert(other, `other.${key}`)
        } catch (err) {
          othersError = err
        }
        insert(sqliteOf(store), key)
      }
      // Deferred, the late write fails at once: SQLite cannot upgrade the stale snapshot.
      expect(() => sqliteOf(store).transaction(readThenWrite('deferred')).deferred()).toThrow(/database is locked/)
      expect(othersError).toBeUndefined()
      // By default the transaction holds the write lock from BEGIN: the other writer is the one to wait.
      sqliteOf(store).transaction(readThenWrite('default'))()
      expect(String(othersError)).toMatch(/database is locked/)
      expect(other.prepare("SELECT key FROM settings WHERE key IN ('deferred', 'default', 'other.deferred', 'other.default') ORDER BY key").pluck().all()).toEqual(['default', 'other.deferred'])
    } finally {
      other.close()
    }
  })
})

describe('usage counts', () => {
  it('keep the topics and countries of each library through a failed flush and write them at the next', async () => {
    const store = await freshStore()
    const one = (await store.libraries.create({ id: '/a/one', title: 'one', sourceKind: 'github', sourceUrl: 'https://github.com/a/one' })).library
    const two = (await store.libraries.create({ id: '/a/two', title: 'two', sourceKind: 'github', sourceUrl: 'https://github.com/a/two' })).library
    const usage = new UsageRecorder(store)
    const topics = () => sqliteOf(store).prepare('SELECT library_pk AS pk, topic, requests FROM usage_topics ORDER BY pk, topic').all()
    const countries = () => sqliteOf(store).prepare('SELECT library_pk AS pk, country, requests FROM usage_countries ORDER BY pk, country').all()
    usage.record(one.pk, 'api', 'rest-txt', new Date(), { question: 'register a route plugin', country: 'de' })
    usage.record(two.pk, 'api', 'rest-txt', new Date(), { question: 'route hooks' })

    // A full disk: the transaction fails and the counts stay pending, with those taken since.
    const { write } = store.usage
    store.usage.write = () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
    }
    await expect(usage.flush()).rejects.toThrow(/disk is full/)
    store.usage.write = write
    usage.record(one.pk, 'api', 'rest-txt', new Date(), { question: 'route options' })
    await usage.flush()

    expect(topics()).toEqual([
      { pk: one.pk, topic: 'options', requests: 1 },
      { pk: one.pk, topic: 'plugin', requests: 1 },
      { pk: one.pk, topic: 'register', requests: 1 },
      { pk: one.pk, topic: 'route', requests: 2 },
      { pk: two.pk, topic: 'hooks', requests: 1 },
      { pk: two.pk, topic: 'route', requests: 1 },
    ])
    expect(countries()).toEqual([
      { pk: one.pk, country: 'DE', requests: 1 },
      { pk: one.pk, country: 'unknown', requests: 1 },
      { pk: two.pk, country: 'unknown', requests: 1 },
    ])
  })
  it('are all stored when a flush returns, even those a flush already under way had taken', async () => {
    const store = await freshStore()
    const one = (await store.libraries.create({ id: '/a/one', title: 'one', sourceKind: 'github', sourceUrl: 'https://github.com/a/one' })).library
    const usage = new UsageRecorder(store)
    const { write } = store.usage
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    store.usage.write = async (batch, today) => {
      await held
      await write(batch, today)
    }
    usage.record(one.pk, 'api', 'rest-txt')
    const periodic = usage.flush()
    // The report's own flush finds nothing pending, yet must not return before the periodic one has stored its counts.
    let reported = false
    const report = usage.forLibrary(one.pk).then((rows) => ((reported = true), rows))
    await new Promise((resolve) => setImmediate(resolve))
    expect(reported).toBe(false)
    release()
    await periodic
    expect((await report).map((row) => row.requests)).toEqual([1])
  })
})
