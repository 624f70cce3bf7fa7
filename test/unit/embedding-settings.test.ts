import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EmbedderPool, configuredEmbedding, saveEmbedding } from '../../src/embed/pool.js'
import { openStore, type Store } from '../../src/store/index.js'

let store: Store | undefined
let dir: string | undefined
afterEach(() => {
  store?.close()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
})

describe('the embedding setting', () => {
  it('keeps an OpenAI-compatible API key sealed at rest and gives it back to the embedder', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-embedding-'))
    store = await openStore(dir)
    const apiKey = 'sk-local-THISISSECRET-0123456789'
    saveEmbedding(store, { provider: 'openai', model: 'bge-small', host: 'http://127.0.0.1:8080', apiKey })
    const raw = store.db.prepare("SELECT value FROM settings WHERE key = 'embedding'").pluck().get() as string
    expect(raw).not.toContain(apiKey)
    expect(JSON.parse(raw)).toMatchObject({ provider: 'openai', apiKeySealed: expect.stringMatching(/^v1\./) })
    store.db.pragma('wal_checkpoint(TRUNCATE)')
    expect(fs.readFileSync(store.paths.database).includes(Buffer.from(apiKey))).toBe(false)
    expect(configuredEmbedding(store)).toEqual({ provider: 'openai', model: 'bge-small', host: 'http://127.0.0.1:8080', apiKey })
    expect(new EmbedderPool(store).current().provider).toBe('openai')
  })

  it('defaults to the built-in hash embedder', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-embedding-'))
    store = await openStore(dir)
    expect(configuredEmbedding(store)).toEqual({ provider: 'hash' })
  })
})
