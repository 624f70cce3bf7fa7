import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EmbedderPool, configuredEmbedding, saveEmbedding } from '../../src/embed/pool.js'
import { openStore, sqliteOf, type Store } from '../../src/store/index.js'
import { serveOnLoopback } from '../helpers/loopback-server.js'

let store: Store | undefined
let dir: string | undefined
afterEach(async () => {
  await store?.close()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

describe('the embedding setting', () => {
  it('keeps an OpenAI-compatible API key sealed at rest and gives it back to the embedder', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-embedding-'))
    store = await openStore(dir)
    const apiKey = 'sk-local-THISISSECRET-0123456789'
    await saveEmbedding(store, { provider: 'openai', model: 'bge-small', host: 'http://127.0.0.1:8080', apiKey })
    const raw = sqliteOf(store).prepare("SELECT value FROM settings WHERE key = 'embedding'").pluck().get() as string
    expect(raw).not.toContain(apiKey)
    expect(JSON.parse(raw)).toMatchObject({ provider: 'openai', apiKeySealed: expect.stringMatching(/^v1\./) })
    sqliteOf(store).pragma('wal_checkpoint(TRUNCATE)')
    expect(fs.readFileSync(store.paths.database).includes(Buffer.from(apiKey))).toBe(false)
    expect(await configuredEmbedding(store)).toEqual({ provider: 'openai', model: 'bge-small', host: 'http://127.0.0.1:8080', apiKey })
    expect((await new EmbedderPool(store).current()).provider).toBe('openai')
  })

  it('defaults to the built-in hash embedder', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-embedding-'))
    store = await openStore(dir)
    expect(await configuredEmbedding(store)).toEqual({ provider: 'hash' })
  })
})

describe('import staging at start-up', () => {
  it('removes staged files no job names and bodies left half received once they are an hour old, and keeps the rest', async () => {
    const { sweepImportStaging, importsDir } = await import('../../src/airgap/import.js')
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-imports-'))
    store = await openStore(dir)
    const requestDir = path.join(importsDir(store), 'request-1')
    fs.mkdirSync(requestDir, { recursive: true })
    const named = path.join(requestDir, '1.json')
    const orphan = path.join(requestDir, '2.json')
    const fresh = path.join(requestDir, '3.json')
    // A body or bundle a request was receiving when the process died sits beside the request directories.
    const received = path.join(importsDir(store), 'upload-1.json')
    const receiving = path.join(importsDir(store), 'upload-2.zip')
    for (const file of [named, orphan, fresh, received, receiving]) fs.writeFileSync(file, '{}')
    const old = new Date(Date.now() - 2 * 3600_000)
    for (const file of [named, orphan, received]) fs.utimesSync(file, old, old)
    await store.jobs.enqueue({ kind: 'import', payload: { project: '/a/b', file: path.relative(store.paths.root, named), created: true } })
    expect(await sweepImportStaging(store)).toBe(2)
    expect(fs.existsSync(named)).toBe(true)
    expect(fs.existsSync(orphan)).toBe(false)
    expect(fs.existsSync(fresh)).toBe(true)
    expect(fs.existsSync(received)).toBe(false)
    expect(fs.existsSync(receiving)).toBe(true)
  })
})

describe('the embedder pool', () => {
  it('uses an API key another process saved from the next embedding on', async () => {
    const authorizations: Array<string | undefined> = []
    const host = await serveOnLoopback((req, res) => {
      authorizations.push(req.headers.authorization)
      req.resume().on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ object: 'list', model: 'm', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3, 0.4] }] }))
      })
    })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-embedding-'))
    store = await openStore(dir)
    // Another process: its own connection to the same database.
    const other = await openStore(dir)
    try {
      await saveEmbedding(other, { provider: 'openai', model: 'm', host, apiKey: 'sk-first' })
      const pool = new EmbedderPool(store)
      await (await pool.current()).embed(['a question'])
      await saveEmbedding(other, { provider: 'openai', model: 'm', host, apiKey: 'sk-second' })
      await (await pool.current()).embed(['a question'])
    } finally {
      await other.close()
    }
    expect(authorizations).toEqual(['Bearer sk-first', 'Bearer sk-second'])
  })
})
