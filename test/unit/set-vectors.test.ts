/**
 * Rebuilding and re-embedding a snippet set's vectors (index/vectors.ts, index/reembed.ts) when
 * things go wrong: the embedder failing half-way, a stop, the set replaced and swept meanwhile, a
 * full disk. The old vectors keep serving byte for byte, the set's embedding is unchanged, no temp
 * or half-written index is left, and a re-embedding continues from its last saved batch. The sets
 * start hash-embedded (their engine file holds their vectors, no vector index) and switch to
 * Ollama (a loopback stand-in), whose sets have a vector index.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { createEmbedder } from '../../src/embed/index.js'
import type { Embedder } from '../../src/embed/types.js'
import { ingestSnippets } from '../../src/index/build.js'
import { engineFileKind, loadSet } from '../../src/index/loaded-set.js'
import { reembedSet } from '../../src/index/reembed.js'
import { removeSetFiles } from '../../src/index/set-files.js'
import { sweepSets } from '../../src/index/sweep.js'
import { indexFromStoredVectors, rebuildVectorIndex } from '../../src/index/vectors.js'
import { toNewSnippet } from '../../src/jobs/ingest.js'
import { engineFilePath, reembedPaths, vectorIndexPath } from '../../src/install/paths.js'
import { inspectVectorFile } from '../../src/index/vector-index.js'
import { openStore, type Store } from '../../src/store/index.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { fill, tmpfs } from '../helpers/tmpfs.js'
import { ollamaStandIn, type StandIn } from '../airgap/ollama-standin.js'

const SNIPPETS = 150
const hash = createEmbedder({ provider: 'hash' })
let ollama: StandIn
beforeAll(async () => {
  ollama = await ollamaStandIn(16)
})
afterAll(() => ollama.close())
/** Another embedder, as a provider switch would give: one whose sets have a vector index. */
const other = () => createEmbedder(ollama.settings)

/**
 * `inner`, with `before(call)` run before each embed call (1-based): it may throw (the provider
 * fails), stop the run, or change the store meanwhile.
 */
function watched(inner: Embedder, before: (call: number) => Promise<void> | void): Embedder & { texts: number } {
  let call = 0
  const embedder = {
    provider: inner.provider,
    model: inner.model,
    texts: 0,
    dimensions: () => inner.dimensions(),
    async embed(texts: string[], signal?: AbortSignal) {
      await before(++call)
      embedder.texts += texts.length
      return inner.embed(texts, signal)
    },
  }
  return embedder
}

const docs = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) =>
    toNewSnippet(
      { kind: 'code', title: `${prefix} step ${i}`, description: `How ${prefix} does step ${i}.`, breadcrumb: 'Guide', pageTitle: 'Guide', anchor: `s${i}`, codeList: [{ language: 'ts', code: `${prefix}.step${i}()` }] },
      `docs/guide.md#s${i}`,
    ),
  )

async function setUp(dataDir?: string, embedder: Embedder = hash): Promise<{ store: Store; versionPk: number; setPk: number; file: string }> {
  const store = await openStore(dataDir ?? (await tmpDataDir()))
  onTestFinished(() => store.close())
  const { version } = await store.libraries.create({ id: '/acme/widgets', title: 'widgets', sourceKind: 'github', sourceUrl: 'x' })
  const { setPk } = await ingestSnippets({ store, embedder }, { versionPk: version.pk, commitSha: 'a' }, docs('widgets', SNIPPETS))
  return { store, versionPk: version.pk, setPk, file: vectorIndexPath(store.paths, setPk) }
}

/** Every file of the vectors directory with its bytes, to prove nothing changed. */
const vectorFiles = (store: Store) => Object.fromEntries(fs.readdirSync(store.paths.vectors).sort().map((name) => [name, fs.readFileSync(path.join(store.paths.vectors, name))]))
const strays = (store: Store) => fs.readdirSync(store.paths.vectors).filter((name) => /\.tmp$|\.next/.test(name))

describe('re-embedding a set', () => {
  it('keeps the old vectors and embedding when the embedder fails half-way, continues from the last saved batch, and switches back to the hash embedder', async () => {
    const { store, setPk, file } = await setUp()
    const engineFile = engineFilePath(store.paths, setPk)
    const engineBefore = fs.readFileSync(engineFile)
    const before = vectorFiles(store)
    const failing = watched(other(), (call) => {
      if (call === 3) throw new Error('provider went away')
    })
    await expect(reembedSet({ store, embedder: failing }, setPk)).rejects.toThrow('provider went away')
    expect(await store.snippets.set(setPk)).toMatchObject({ status: 'live', embedProvider: 'hash', dimensions: 384 })
    const files = reembedPaths(store.paths, setPk)
    // Two batches of 64 saved, nothing more; the engine file, which holds the live vectors, untouched.
    expect(JSON.parse(fs.readFileSync(files.meta, 'utf8'))).toMatchObject({ done: 128 })
    expect(fs.statSync(files.vectors).size).toBe(128 * 16 * 4)
    const { [path.basename(files.vectors)]: _v, [path.basename(files.meta)]: _m, ...rest } = vectorFiles(store)
    expect(rest).toEqual(before)
    expect(fs.readFileSync(engineFile).equals(engineBefore)).toBe(true)
    expect(strays(store)).toEqual([])

    const healed = watched(other(), () => {})
    const switched: number[] = []
    expect(await reembedSet({ store, embedder: healed, onSwitched: (pk) => switched.push(pk) }, setPk)).toEqual({ outcome: 'switched', snippets: SNIPPETS, resumedAt: 128 })
    expect(healed.texts).toBe(SNIPPETS - 128)
    expect(switched).toEqual([setPk])
    expect(await store.snippets.set(setPk)).toMatchObject({ embedProvider: 'ollama', dimensions: 16 })
    expect(inspectVectorFile(file, { dimensions: 16, count: SNIPPETS })).toBeUndefined()
    expect(fs.readdirSync(store.paths.vectors).sort()).toEqual([`set-${setPk}.usearch`, `set-${setPk}.usearch.json`])
    // The new vectors are stored with the rows: the file can be rebuilt without the embedder.
    expect((await indexFromStoredVectors(store.snippets, (await store.snippets.set(setPk))!))?.size).toBe(SNIPPETS)
    // The engine file was written again for the new embedder (no vectors in it now): the next
    // load reads it as it is.
    const heads = await store.snippets.headsOfSet(setPk)
    const load = async () =>
      await loadSet(setPk, heads, engineFileKind((await store.snippets.set(setPk))!), engineFilePath(store.paths, setPk), () => {
        throw new Error('the engine file matches the new embedder')
      })
    expect((await load()).vectors).toBeUndefined()

    // Back to the hash embedder: the vector index goes, and the engine file holds the vectors again.
    expect(await reembedSet({ store, embedder: hash }, setPk)).toMatchObject({ outcome: 'switched', snippets: SNIPPETS })
    expect(await store.snippets.set(setPk)).toMatchObject({ embedProvider: 'hash', dimensions: 384 })
    expect(fs.readdirSync(store.paths.vectors)).toEqual([])
    expect((await store.snippets.vectorPage(setPk, 0, SNIPPETS)).every((row) => row.vector === null)).toBe(true)
    expect((await load()).vectors?.dimensions).toBe(384)
    expect(fs.readFileSync(engineFile).equals(engineBefore)).toBe(true)
  })

  it('leaves the set as it was when stopped', async () => {
    const { store, setPk } = await setUp()
    const before = vectorFiles(store)
    const stop = new AbortController()
    const stopping = watched(other(), (call) => {
      if (call === 2) stop.abort()
    })
    await expect(reembedSet({ store, embedder: stopping, signal: stop.signal }, setPk)).rejects.toMatchObject({ name: 'AbortError' })
    expect(await store.snippets.set(setPk)).toMatchObject({ embedProvider: 'hash', dimensions: 384 })
    const files = reembedPaths(store.paths, setPk)
    const { [path.basename(files.vectors)]: _v, [path.basename(files.meta)]: _m, ...rest } = vectorFiles(store)
    expect(rest).toEqual(before)
    expect(strays(store)).toEqual([])
  })

  it('stops, and leaves no file, for a set replaced and swept while it was embedded', async () => {
    const { store, versionPk, setPk } = await setUp()
    const replacing = watched(other(), async (call) => {
      if (call !== 2) return
      await ingestSnippets({ store, embedder: hash }, { versionPk, commitSha: 'b' }, docs('gadgets', 3))
      await sweepSets(store, ['retired'])
    })
    expect(await reembedSet({ store, embedder: replacing }, setPk)).toEqual({ outcome: 'replaced' })
    // It stopped at the batch that saw the set go, rather than embedding the rest for nothing.
    expect(replacing.texts).toBe(2 * 64)
    expect(await store.snippets.set(setPk)).toBeUndefined()
    expect(fs.readdirSync(store.paths.vectors).filter((name) => name.startsWith(`set-${setPk}.`))).toEqual([])
  })

  it('takes its files with it when the set goes half re-embedded', async () => {
    const { store, setPk } = await setUp()
    await expect(reembedSet({ store, embedder: watched(other(), (call) => { if (call === 2) throw new Error('down') }) }, setPk)).rejects.toThrow('down')
    expect(fs.existsSync(reembedPaths(store.paths, setPk).vectors)).toBe(true)
    removeSetFiles(store.paths, setPk)
    expect(fs.readdirSync(store.paths.vectors)).toEqual([])
  })

  it('fails with disk_full on a full volume, keeping what it saved and the old vectors, and finishes once there is room', async () => {
    const mount = await tmpfs('24m')
    const { store, setPk, file } = await setUp(path.join(mount, 'data'))
    const before = vectorFiles(store)
    let free: (() => void) | undefined
    const filling = watched(other(), (call) => {
      if (call === 2) free = fill(mount)
    })
    await expect(reembedSet({ store, embedder: filling }, setPk)).rejects.toMatchObject({ code: 'disk_full' })
    const files = reembedPaths(store.paths, setPk)
    expect(await store.snippets.set(setPk)).toMatchObject({ embedProvider: 'hash', dimensions: 384 })
    const saved = JSON.parse(fs.readFileSync(files.meta, 'utf8')) as { done: number }
    expect(saved.done).toBe(64)
    expect(fs.statSync(files.vectors).size).toBe(saved.done * 16 * 4)
    const { [path.basename(files.vectors)]: _v, [path.basename(files.meta)]: _m, ...rest } = vectorFiles(store)
    expect(rest).toEqual(before)
    expect(strays(store)).toEqual([])

    free!()
    expect(await reembedSet({ store, embedder: other() }, setPk)).toMatchObject({ outcome: 'switched', resumedAt: 64 })
    expect(inspectVectorFile(file, { dimensions: 16, count: SNIPPETS })).toBeUndefined()
  })
})

describe('rebuilding a set\'s vector index', () => {
  it('writes nothing and leaves no temp file when the embedder fails half-way or the run is stopped', async () => {
    const { store, setPk, file } = await setUp(undefined, other())
    fs.rmSync(file)
    fs.rmSync(`${file}.json`)
    // A set built before vectors were stored with the rows: only the embedder can rebuild its index.
    await store.snippets.setVectors(setPk, null)
    const failing = watched(other(), () => {
      throw new Error('provider went away')
    })
    await expect(rebuildVectorIndex({ store, embedders: { forSet: async () => failing } }, setPk)).rejects.toThrow('provider went away')
    const stop = new AbortController()
    const stopping = watched(other(), () => stop.abort())
    await expect(rebuildVectorIndex({ store, embedders: { forSet: async () => stopping }, signal: stop.signal }, setPk)).rejects.toMatchObject({ name: 'AbortError' })
    expect(fs.readdirSync(store.paths.vectors)).toEqual([])

    const rebuilt: number[] = []
    expect(await rebuildVectorIndex({ store, embedders: { forSet: async () => other() }, onRebuilt: (pk) => rebuilt.push(pk) }, setPk)).toBe(SNIPPETS)
    expect(rebuilt).toEqual([setPk])
    expect(inspectVectorFile(file, { dimensions: 16, count: SNIPPETS })).toBeUndefined()
  })

  it('builds none for a hash-embedded set, whose engine file holds its vectors (a rebuild queued by an earlier version)', async () => {
    const { store, setPk } = await setUp()
    const embedder = watched(hash, () => {})
    expect(await rebuildVectorIndex({ store, embedders: { forSet: async () => embedder } }, setPk)).toBeUndefined()
    expect(embedder.texts).toBe(0)
    expect(fs.readdirSync(store.paths.vectors)).toEqual([])
  })

  it('writes no file for a set replaced and swept while it was embedded', async () => {
    const { store, versionPk, setPk, file } = await setUp(undefined, other())
    fs.rmSync(file)
    fs.rmSync(`${file}.json`)
    await store.snippets.setVectors(setPk, null)
    const replacing = watched(other(), async () => {
      await ingestSnippets({ store, embedder: hash }, { versionPk, commitSha: 'b' }, docs('gadgets', 3))
      await sweepSets(store, ['retired'])
    })
    expect(await rebuildVectorIndex({ store, embedders: { forSet: async () => replacing } }, setPk)).toBeUndefined()
    expect(fs.readdirSync(store.paths.vectors).filter((name) => name.startsWith(`set-${setPk}.`))).toEqual([])
  })
})
