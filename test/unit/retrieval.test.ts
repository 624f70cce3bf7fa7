import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { ANONYMOUS } from '../../src/library/access.js'
import { saveEmbedding } from '../../src/embed/pool.js'
import { ingestSnippets } from '../../src/index/build.js'
import { toNewSnippet } from '../../src/jobs/ingest.js'
import { REBUILD_VECTORS_JOB } from '../../src/jobs/kinds.js'
import { claimFileOf, claimRebuild } from '../../src/index/rebuild-claim.js'
import { sweepSets } from '../../src/index/sweep.js'
import type { ParsedSnippet } from '../../src/parse/types.js'
import { engineFilePath, vectorIndexPath } from '../../src/install/paths.js'
import { openRuntime, recoverDataDir, type Runtime } from '../../src/runtime.js'
import { resolveConfig } from '../../src/config.js'
import { packSnippets } from '../../src/search/budget.js'
import { fuseRankings, HASH_RESCORED, HASH_VECTOR_WEIGHT, rescoreByHashSimilarity, type RankedDoc } from '../../src/search/fusion.js'
import { LexicalIndex } from '../../src/index/lexical-index.js'
import { quantizeInto, SetVectors } from '../../src/index/set-vectors.js'
import { inspectVectorFile } from '../../src/index/vector-index.js'
import { SetEngine } from '../../src/index/engine.js'
import { reembedSet } from '../../src/index/reembed.js'
import { createEmbedder } from '../../src/embed/index.js'
import { indexFromStoredVectors, rebuildVectorIndex } from '../../src/index/vectors.js'
import { renderSnippetText } from '../../src/index/render.js'
import type { StoredSnippet } from '../../src/store/snippets.js'
import { questionTerms } from '../../src/text/terms.js'
import { countTokens } from '../../src/text/tokens.js'
import { ollamaStandIn } from '../airgap/ollama-standin.js'
import { sqliteOf } from '../../src/store/index.js'

const code = (title: string, description: string, source: string, language = 'ts'): ParsedSnippet => ({
  kind: 'code',
  title,
  description,
  breadcrumb: `Guide > ${title}`,
  pageTitle: 'Guide',
  anchor: title.toLowerCase().replace(/\s+/g, '-'),
  codeList: [{ language, code: source }],
})

const DOCS: ParsedSnippet[] = [
  code('Register a route', 'Routes map a method and a URL to a handler.', "app.route({ method: 'GET', url: '/', handler })"),
  code('Add a hook', 'Hooks run code at points of the request lifecycle.', "app.addHook('onRequest', async (req) => {})"),
  code('Read a file', 'Use readFile to load a file into memory.', "const text = await fs.readFile('a.txt', 'utf8')"),
  code('Close the server', 'Graceful shutdown waits for in-flight requests.', 'await app.close()'),
]

let runtime: Runtime
let dir: string

async function addLibrary(id: string, docs: ParsedSnippet[]) {
  const { library, version } = await runtime.store.libraries.create({ id, title: id.split('/')[2], sourceKind: 'github', sourceUrl: 'x' })
  const snippets = docs.map((d) => toNewSnippet(d, `docs/guide.md#${d.anchor}`))
  const result = await ingestSnippets({ store: runtime.store, embedder: await runtime.embedders.current() }, { versionPk: version.pk, commitSha: 'abc' }, snippets)
  return { library, version, result }
}

/** New sets are embedded by Ollama (a loopback stand-in): sets with a vector index of their own. */
async function embedWithOllama(): Promise<Awaited<ReturnType<typeof ollamaStandIn>>> {
  const standIn = await ollamaStandIn(16)
  onTestFinished(() => standIn.close())
  await saveEmbedding(runtime.store, standIn.settings)
  return standIn
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-retrieval-'))
  runtime = await openRuntime({ config: resolveConfig({ dataDir: dir }).config })
})
afterEach(async () => {
  await runtime.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('ingest and retrieval', () => {
  it('answers each question with the matching snippet first, identifiers split both ways', async () => {
    const { result } = await addLibrary('/acme/web', DOCS)
    // A hash-embedded set has no vector index: its engine file holds its vectors.
    expect(fs.readdirSync(runtime.store.paths.vectors)).toEqual([])
    // A question none of whose words occur: the set's vectors answer, with the snippets that share
    // a hashed word or part of one with it.
    const unmatched = await runtime.retriever.rank(result.setPk, 'zzz unrelated words')
    expect(unmatched.length).toBeGreaterThan(0)
    expect(unmatched.length).toBeLessThanOrEqual(DOCS.length)
    const ask = async (query: string) => (await runtime.retriever.getContext({ libraryId: '/acme/web', query, tokens: 5000, caller: ANONYMOUS })).snippets[0].title
    // A misspelt word matches no term, but shares character 3-grams with the right snippet's.
    expect(await ask('shutdwn')).toBe('Close the server')
    // Otherwise the lexical candidates alone are ranked, re-ranked by their hash similarity.
    expect(await runtime.retriever.rank(result.setPk, 'graceful shutdown')).toHaveLength(1)
    expect(await ask('how do I register a route')).toBe('Register a route')
    expect(await ask('readFile')).toBe('Read a file')
    expect(await ask('addHook onRequest')).toBe('Add a hook')
    expect(await ask('graceful shutdown')).toBe('Close the server')
  })

  it('ignores URL hosts, which would make a word shared by every example worthless', async () => {
    const curl = (method: string, path: string) => `curl -X ${method} https://api.acme-pets.example/v1${path} -H "Authorization: Bearer $TOKEN"`
    await addLibrary('/docs/pets', [
      code('POST /categories: Create a category', 'Creates a product category with a long description of categories and their parents.', curl('POST', '/categories')),
      code('POST /pets: Create a pet', 'Creates a pet.', curl('POST', '/pets')),
      code('GET /orders: List orders', 'Lists the orders of the shop.', curl('GET', '/orders')),
    ])
    const { snippets } = await runtime.retriever.getContext({ libraryId: '/docs/pets', query: 'how do I create a pet', tokens: 5000, caller: ANONYMOUS })
    expect(snippets[0].title).toBe('POST /pets: Create a pet')
  })

  it('answers an explanation with its section\'s code right behind it, though the code shares no word with the question', async () => {
    const info = (breadcrumb: string, content: string): ParsedSnippet => ({ kind: 'info', breadcrumb, pageTitle: 'Guide', anchor: breadcrumb.toLowerCase(), content })
    const docs: ParsedSnippet[] = [
      info('Passwords', 'Ask for a secret without echoing what the user types, and confirm it by asking twice.'),
      { ...code('Passwords', '', 'name = Option(prompt=True, hide_input=True, confirmation_prompt=True)', 'py'), anchor: 'passwords' },
      code('Echo', 'Echo text back to the terminal.', 'echo(message)', 'py'),
      { ...code('Colors', '', 'style(text, fg="red")', 'py'), anchor: 'colors' },
      info('Colors', 'Colors make output easier to read.'),
    ]
    await addLibrary('/acme/cli', docs)
    const { snippets } = await runtime.retriever.getContext({ libraryId: '/acme/cli', query: 'ask for a secret without echoing what the user types', tokens: 5000, caller: ANONYMOUS })
    expect(snippets.slice(0, 2).map((s) => [s.kind, s.title])).toEqual([['info', 'Passwords'], ['code', 'Passwords']])
    expect(snippets.map((s) => s.title)).not.toContain('Colors')
  })

  it('builds a set whose engine file cannot be written, and answers from the rows', async () => {
    // A file where the engine/ directory should be: no engine file can be written there.
    fs.writeFileSync(runtime.store.paths.engine, 'not a directory')
    const { result } = await addLibrary('/acme/nodir', DOCS)
    expect(result.snippets).toBe(DOCS.length)
    const { snippets } = await runtime.retriever.getContext({ libraryId: '/acme/nodir', query: 'register a route', tokens: 5000, caller: ANONYMOUS })
    expect(snippets[0].title).toBe('Register a route')
  })

  it('stores identical snippets once and counts tokens of the rendered text', async () => {
    const { result } = await addLibrary('/acme/dup', [...DOCS, DOCS[0]])
    expect(result.snippets).toBe(DOCS.length)
    const stored = await runtime.store.snippets.allOfSet(result.setPk)
    for (const s of stored) expect(s.tokens).toBe(countTokens(renderSnippetText(s)))
  })

  it('swaps a new set in atomically and sweeps the replaced one with its files', async () => {
    const { version, result } = await addLibrary('/acme/swap', DOCS)
    const oldFile = engineFilePath(runtime.store.paths, result.setPk)
    expect(fs.existsSync(oldFile)).toBe(true)
    const next = await ingestSnippets(
      { store: runtime.store, embedder: await runtime.embedders.current() },
      { versionPk: version.pk, commitSha: 'def' },
      DOCS.slice(0, 2).map((d) => toNewSnippet(d, 'x')),
    )
    expect(await runtime.store.libraries.versionByPk(version.pk)).toMatchObject({ currentSet: next.setPk, totalSnippets: 2, commitSha: 'def' })
    expect((await runtime.store.snippets.set(result.setPk))?.status).toBe('retired')
    expect(await sweepSets(runtime.store, ['retired'])).toBe(1)
    expect(fs.existsSync(oldFile)).toBe(false)
    expect(sqliteOf(runtime.store).prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'fts_${result.setPk}'`).pluck().get()).toBe(0)
  })

  it('sweeps a half-built set a dead job left, and never the set this process is building', async () => {
    const { version } = await addLibrary('/acme/sweep', DOCS)
    const left = await runtime.store.snippets.createSet(version.pk, { provider: 'hash', model: 'hash-v1', dimensions: 384 })
    const base = await runtime.embedders.current()
    let embedding!: () => void
    const embedderWaits = new Promise<void>((resolve) => { embedding = resolve })
    let release!: () => void
    const released = new Promise<void>((resolve) => { release = resolve })
    const slow = { provider: base.provider, model: base.model, dimensions: () => base.dimensions(), embed: async (texts: string[]) => {
      embedding()
      await released
      return base.embed(texts)
    } }
    const building = ingestSnippets({ store: runtime.store, embedder: slow }, { versionPk: version.pk, commitSha: 'new' }, DOCS.map((d) => toNewSnippet(d, 'z')))
    await embedderWaits
    // Between two jobs the worker sweeps `building` sets: the one left behind goes, the one
    // being built now stays.
    const swept: number[] = []
    expect(await sweepSets(runtime.store, ['building'], (pk) => swept.push(pk))).toBe(1)
    expect(swept).toEqual([left.pk])
    release()
    const result = await building
    expect((await runtime.store.snippets.set(result.setPk))?.status).toBe('live')
    expect((await runtime.store.libraries.versionByPk(version.pk))?.currentSet).toBe(result.setPk)
    expect((await runtime.retriever.rank(result.setPk, 'register a route')).length).toBeGreaterThan(0)
  })

  it('removes a half-built set when ingest fails, keeping the live one', async () => {
    await embedWithOllama()
    const { version, result } = await addLibrary('/acme/fail', DOCS)
    const base = await runtime.embedders.current()
    const failing = { provider: base.provider, model: base.model, dimensions: () => base.dimensions(), embed: () => Promise.reject(new Error('provider down')) }
    await expect(
      ingestSnippets({ store: runtime.store, embedder: failing }, { versionPk: version.pk, commitSha: 'x' }, DOCS.map((d) => toNewSnippet(d, 'y'))),
    ).rejects.toThrow('provider down')
    expect((await runtime.store.libraries.versionByPk(version.pk))?.currentSet).toBe(result.setPk)
    expect(await runtime.store.snippets.setsWithStatus('building')).toEqual([])
    expect(fs.readdirSync(runtime.store.paths.vectors).sort()).toEqual([`set-${result.setPk}.usearch`, `set-${result.setPk}.usearch.json`])
    expect(fs.readdirSync(runtime.store.paths.engine)).toEqual([path.basename(engineFilePath(runtime.store.paths, result.setPk))])
  })

  it('refuses an empty library with no_code_found', async () => {
    const { version } = await runtime.store.libraries.create({ id: '/acme/empty', title: 'e', sourceKind: 'github', sourceUrl: 'x' })
    await expect(
      ingestSnippets({ store: runtime.store, embedder: await runtime.embedders.current() }, { versionPk: version.pk, commitSha: null }, []),
    ).rejects.toMatchObject({ code: 'no_code_found', status: 422 })
  })

  it('rebuilds a missing or mismatched vector index from the vectors stored with the rows, never asking the embedder again', async () => {
    const standIn = await embedWithOllama()
    const { result } = await addLibrary('/acme/vec', DOCS)
    const embedded = standIn.calls.flat().length
    const file = vectorIndexPath(runtime.store.paths, result.setPk)
    fs.writeFileSync(file, 'not an index, and mapping it must not crash the process')
    await recoverDataDir(runtime)
    expect(fs.existsSync(file)).toBe(false)
    const job = (await runtime.store.jobs.list({ states: ['queued'] }))[0]
    expect(job.kind).toBe(REBUILD_VECTORS_JOB)
    await runtime.worker.drain()
    expect((await runtime.store.jobs.byPk(job.pk))?.state).toBe('succeeded')
    expect(fs.existsSync(file)).toBe(true)
    // The rebuilt index answers a question that matches no word of the set; only that question was embedded.
    expect(await runtime.retriever.rank(result.setPk, 'zzz unrelated words')).toHaveLength(DOCS.length)
    expect(standIn.calls.flat()).toHaveLength(embedded + 1)

  })

  it('loads anew a set that another replica re-embedded into other engine data, at its first request after', async () => {
    const standIn = await embedWithOllama()
    const { result } = await addLibrary('/acme/vec', DOCS)
    const engine = new SetEngine(runtime.store, 64 * 1024 * 1024)
    const setNow = async () => (await runtime.store.snippets.set(result.setPk))!
    expect((await engine.loaded(await setNow())).vectors).toBeUndefined()
    // Switched back to the hash embedder by another replica's job: this engine is not told.
    const hash = createEmbedder({ provider: 'hash' })
    expect(await reembedSet({ store: runtime.store, embedder: hash }, result.setPk)).toMatchObject({ outcome: 'switched' })
    const reloaded = await engine.loaded(await setNow())
    expect(reloaded.vectors!.dimensions).toBe((await runtime.store.snippets.set(result.setPk))!.dimensions)
    await standIn.close()
  })

  it('keeps no API key or URL of the embedder in a vector index sidecar, and rewrites one an earlier build wrote at start', async () => {
    await embedWithOllama()
    const { result } = await addLibrary('/acme/vec', DOCS)
    const sidecar = `${vectorIndexPath(runtime.store.paths, result.setPk)}.json`
    const fields = ['bytes', 'count', 'dimensions', 'model', 'provider']
    expect(Object.keys(JSON.parse(fs.readFileSync(sidecar, 'utf8')) as object).sort()).toEqual(fields)
    fs.writeFileSync(sidecar, JSON.stringify({ ...(JSON.parse(fs.readFileSync(sidecar, 'utf8')) as object), apiKey: 'sk-secret', url: 'https://api.example.com' }))
    await recoverDataDir(runtime)
    expect(fs.readFileSync(sidecar, 'utf8')).not.toContain('sk-secret')
    expect(Object.keys(JSON.parse(fs.readFileSync(sidecar, 'utf8')) as object).sort()).toEqual(fields)
    // Still the set's index: nothing to rebuild.
    expect(await runtime.store.jobs.list({ states: ['queued'] })).toEqual([])
  })

  it('re-embeds a set built before vectors were stored once, storing them for every later rebuild', async () => {
    const standIn = await embedWithOllama()
    const { result } = await addLibrary('/acme/vec', DOCS)
    const set = (await runtime.store.snippets.set(result.setPk))!
    await runtime.store.snippets.setVectors(result.setPk, null)
    expect(await indexFromStoredVectors(runtime.store.snippets, set)).toBeUndefined()
    const before = standIn.calls.flat().length
    expect(await rebuildVectorIndex({ store: runtime.store, embedders: runtime.embedders }, result.setPk)).toBe(DOCS.length)
    expect(standIn.calls.flat()).toHaveLength(before + DOCS.length)
    expect((await indexFromStoredVectors(runtime.store.snippets, set))?.size).toBe(DOCS.length)
    expect(await rebuildVectorIndex({ store: runtime.store, embedders: runtime.embedders }, result.setPk)).toBe(DOCS.length)
    expect(standIn.calls.flat()).toHaveLength(before + DOCS.length)
    // A file of another embedder's vectors does not serve the set.
    const file = vectorIndexPath(runtime.store.paths, result.setPk)
    expect(inspectVectorFile(file, { dimensions: 16, count: DOCS.length, embedder: { provider: 'ollama', model: 'other-model' } })).toBe('holds vectors of ollama nomic-embed-text, expected ollama other-model')
  })

  it('answers from the lexical index while the embedder is down, and from the vectors again once the set is loaded anew', async () => {
    const standIn = await embedWithOllama()
    const { result } = await addLibrary('/acme/vec', DOCS)
    expect(await runtime.retriever.rank(result.setPk, 'zzz unrelated words')).toHaveLength(DOCS.length)
    await standIn.close()
    const down = await runtime.retriever.getContext({ libraryId: '/acme/vec', query: 'register a route', tokens: 5000, caller: ANONYMOUS })
    expect(down.snippets[0].title).toBe('Register a route')
    const back = await ollamaStandIn(16)
    onTestFinished(() => back.close())
    await saveEmbedding(runtime.store, back.settings)
    // Remembered with the loaded set: no request asks the embedder again until the set is loaded anew.
    expect(await runtime.retriever.rank(result.setPk, 'zzz unrelated words')).toEqual([])
    expect(back.calls).toHaveLength(0)
    runtime.retriever.forgetSet(result.setPk)
    expect(await runtime.retriever.rank(result.setPk, 'zzz unrelated words')).toHaveLength(DOCS.length)
  })

  it('removes stray engine files at start: unfinished writes and claims of processes that are gone, files of sets that are gone; not a running write or rebuild', async () => {
    const { result } = await addLibrary('/acme/strays', DOCS)
    const live = engineFilePath(runtime.store.paths, result.setPk)
    const dead = spawnSync(process.execPath, ['-e', '0']).pid
    const engine = (name: string) => path.join(runtime.store.paths.engine, name)
    const strays = ['set-99999.engine', `set-${result.setPk}.engine.4242.tmp`, `set-${result.setPk}.engine.${dead}-0.tmp`, 'notes.txt'].map(engine)
    for (const stray of strays) fs.writeFileSync(stray, 'left behind')
    const staleClaim = claimFileOf(live)
    fs.writeFileSync(staleClaim, JSON.stringify({ pid: dead, host: os.hostname() }))
    const kept = fs.readFileSync(live)
    const lines: Array<{ obj: object; msg: string }> = []
    const recover = () => recoverDataDir(runtime, { info: (obj: object, msg: string) => lines.push({ obj, msg }), warn: () => {}, error: () => {} })
    await recover()
    expect([...strays, staleClaim].filter((stray) => fs.existsSync(stray))).toEqual([])
    expect(fs.readFileSync(live).equals(kept)).toBe(true)
    expect(lines).toContainEqual({ obj: { strays: 5 }, msg: 'removed engine files of sets that are gone, and unfinished writes' })

    // A serving process loading this set right now (serve --workers N warms sets at start).
    const running = [engine(`set-${result.setPk}.engine.${process.pid}-1.tmp`), claimFileOf(live)]
    fs.writeFileSync(running[0], 'being written')
    const claim = claimRebuild(live)!
    await recover()
    expect(running.filter((file) => fs.existsSync(file))).toEqual(running)
    claim.release()
    fs.rmSync(running[0])
  })

  it('removes stray vector files at start: sets that are gone, writes of processes that are gone, a hash-embedded set\'s index; not a running write or a re-embedding', async () => {
    const hashed = (await addLibrary('/acme/hashed', DOCS)).result.setPk
    await embedWithOllama()
    const { result } = await addLibrary('/acme/vector-strays', DOCS)
    const vectors = runtime.store.paths.vectors
    const live = vectorIndexPath(runtime.store.paths, result.setPk)
    const deadWriter = spawnSync(process.execPath, ['-e', '0']).pid
    // set-<hashed>.usearch: the vector index earlier versions built for a hash-embedded set.
    // <pid>-<thread>.tmp as this version names its writes, <pid>.tmp as earlier ones did.
    const strays = ['set-99999.usearch', 'set-99999.usearch.json', `set-${result.setPk}.usearch.${deadWriter}.tmp`, `set-${result.setPk}.usearch.json.${deadWriter}-1.tmp`, `set-${hashed}.usearch`, `set-${hashed}.usearch.json`].map((name) => path.join(vectors, name))
    const running = path.join(vectors, `set-${result.setPk}.usearch.${process.pid}-0.tmp`)
    const reembedding = path.join(vectors, `set-${hashed}.usearch.reembed.f32`)
    const unknown = path.join(vectors, 'README')
    for (const file of [...strays, running, reembedding, unknown]) fs.writeFileSync(file, 'left behind')
    const kept = fs.readFileSync(live)
    const lines: Array<{ obj: object; msg: string }> = []
    await recoverDataDir(runtime, { info: (obj: object, msg: string) => lines.push({ obj, msg }), warn: () => {}, error: () => {} })
    expect(strays.filter((stray) => fs.existsSync(stray))).toEqual([])
    expect([running, reembedding, unknown].filter((file) => fs.existsSync(file))).toEqual([running, reembedding, unknown])
    expect(fs.readFileSync(live).equals(kept)).toBe(true)
    expect(lines).toContainEqual({
      obj: { strays: 6 },
      msg: 'removed vector files of sets that are gone, vector indexes of hash-embedded sets (their engine files hold their vectors), and unfinished writes',
    })
    // No rebuild is queued for the hash-embedded set, which needs no index.
    expect(await runtime.store.jobs.list({ states: ['queued'] })).toEqual([])
    fs.rmSync(running)
    fs.rmSync(unknown)
  })

  it('removes the lexical/ directory of an earlier build at start, keeping every set answerable', async () => {
    await addLibrary('/acme/legacy', DOCS)
    const legacy = runtime.store.paths.legacyLexical
    fs.mkdirSync(legacy, { recursive: true })
    fs.writeFileSync(path.join(legacy, 'set-1.lexical'), 'an index of the earlier format')
    const lines: string[] = []
    await recoverDataDir(runtime, { info: (_obj: object, msg: string) => lines.push(msg), warn: () => {}, error: () => {} })
    expect(fs.existsSync(legacy)).toBe(false)
    expect(lines).toContain('removed lexical/: engine files replace its lexical index files')
    const { snippets } = await runtime.retriever.getContext({ libraryId: '/acme/legacy', query: 'close the server', tokens: 5000, caller: ANONYMOUS })
    expect(snippets[0].title).toBe('Close the server')
  })
})

describe('fusion and packing', () => {
  it('rewards documents that rank well in both lists', () => {
    expect(fuseRankings([{ pks: [1, 2, 3], weight: 1 }, { pks: [4, 2, 5], weight: 1 }])[0].pk).toBe(2)
  })

  it('gives the cosine bonus to exactly the HASH_RESCORED candidates most similar to the question, ties to the lower doc', () => {
    // The definition, by sorting everything: what the selection in rescoreByHashSimilarity must equal.
    const reference = (candidates: RankedDoc[], cosines: number[]): RankedDoc[] => {
      const top = candidates[0]?.score ?? 0
      const scored = candidates.map((hit, i) => ({ doc: hit.doc, score: top > 0 ? hit.score / top : 0, cosine: cosines[i] }))
      const similar = [...scored].sort((a, b) => b.cosine - a.cosine || a.doc - b.doc).slice(0, HASH_RESCORED)
      for (const hit of similar) hit.score += HASH_VECTOR_WEIGHT * hit.cosine
      return scored.sort((a, b) => b.score - a.score || a.doc - b.doc).map(({ doc, score }) => ({ doc, score }))
    }
    let seed = 7
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(random() * 60)
      const docs = [...new Set(Array.from({ length: n }, () => Math.floor(random() * 500)))]
      // Scores and cosines from a few values only, so ties are common.
      const candidates = docs.map((doc) => ({ doc, score: Math.floor(random() * 5) + 1 })).sort((a, b) => b.score - a.score || a.doc - b.doc)
      const cosines = candidates.map(() => Math.floor(random() * 4) / 4)
      expect(rescoreByHashSimilarity(candidates, cosines)).toEqual(reference(candidates, cosines))
    }
  })

  it('refuses cosines that do not match the candidates one for one', () => {
    const candidates = [{ doc: 1, score: 2 }, { doc: 2, score: 1 }]
    expect(() => rescoreByHashSimilarity(candidates, [0.5])).toThrow('1 cosines for 2 candidates')
  })

  it('computes the cosines of many rows at once exactly as one row at a time, in the order asked', () => {
    let seed = 11
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1
    const dimensions = 96
    const vectors = Array.from({ length: 40 }, (_, doc) => Float32Array.from({ length: dimensions }, () => (doc === 7 ? 0 : random())))
    const rows = new Int8Array(vectors.length * dimensions)
    vectors.forEach((vector, row) => quantizeInto(vector, rows, row))
    const set = new SetVectors(rows, dimensions)
    // A question's hash vector is sparse: most dimensions zero.
    const question = Float32Array.from({ length: dimensions }, (_, i) => (i % 5 === 0 ? random() : 0))
    const docs = [31, 0, 7, 12, 39, 12, 5]
    const batch = set.similarities(question, docs)
    // One row at a time, dimension after dimension, as before the batch: the same floats, bit for bit.
    const norms = Array.from({ length: vectors.length }, (_, doc) => Math.fround(Math.sqrt(rows.subarray(doc * dimensions, (doc + 1) * dimensions).reduce((sum, value) => sum + value * value, 0))))
    const queryNorm = Math.sqrt(question.reduce((sum, value) => sum + value * value, 0))
    const rowAtATime = (doc: number) => {
      let dot = 0
      for (let i = 0; i < dimensions; i++) if (question[i] !== 0) dot += question[i] * rows[doc * dimensions + i]
      const product = queryNorm * norms[doc]
      return product > 0 ? dot / product : 0
    }
    docs.forEach((doc, i) => expect(Object.is(batch[i], rowAtATime(doc)), `doc ${doc}`).toBe(true))
    const plain = (doc: number) => {
      const row = rows.subarray(doc * dimensions, (doc + 1) * dimensions)
      const dot = row.reduce((sum, value, i) => sum + value * question[i], 0)
      const norm = (v: ArrayLike<number>) => Math.hypot(...Array.from(v))
      return norm(row) === 0 ? 0 : dot / (norm(row) * norm(question))
    }
    // Norms are kept as 32-bit floats.
    docs.forEach((doc, i) => expect(batch[i]).toBeCloseTo(plain(doc), 6))
    expect(batch[2]).toBe(0)
    expect(set.similarities(question, []).length).toBe(0)
  })

  it('gives the same cosines whatever question of whatever length was asked before', () => {
    // The question's sparse form is kept for the module, grown and refilled by each call.
    const docs = Array.from({ length: 30 }, (_, doc) => doc)
    const setOf = (dimensions: number, seed: number) => {
      const rows = new Int8Array(docs.length * dimensions)
      for (const row of docs) quantizeInto(Float32Array.from({ length: dimensions }, (_, i) => Math.sin(seed * (row + 1) * (i + 1))), rows, row)
      // Each cosine as defined, one row at a time, in 64-bit floats (norms kept as 32-bit).
      const cosineOf = (query: Float32Array, doc: number) => {
        const row = rows.subarray(doc * dimensions, (doc + 1) * dimensions)
        let dot = 0
        for (let i = 0; i < dimensions; i++) if (query[i] !== 0) dot += query[i] * row[i]
        const product = Math.sqrt(query.reduce((sum, value) => sum + value * value, 0)) * Math.fround(Math.sqrt(row.reduce((sum, value) => sum + value * value, 0)))
        return product > 0 ? dot / product : 0
      }
      return { set: new SetVectors(rows, dimensions), cosineOf }
    }
    const small = setOf(16, 3)
    const large = setOf(1024, 5)
    const smallQuestion = Float32Array.from({ length: 16 }, (_, i) => (i % 3 === 0 ? Math.cos(i) : 0))
    const largeQuestion = Float32Array.from({ length: 1024 }, (_, i) => (i % 2 === 0 ? Math.cos(i) : 0))
    for (const [{ set, cosineOf }, question] of [[small, smallQuestion], [large, largeQuestion], [small, smallQuestion]] as const) {
      expect([...set.similarities(question, docs)]).toEqual(docs.map((doc) => cosineOf(question, doc)))
      const positive = docs.map((doc) => ({ doc, cosine: cosineOf(question, doc) })).filter(({ cosine }) => cosine > 0)
      expect(set.nearest(question, 5)).toEqual(positive.sort((a, b) => b.cosine - a.cosine || a.doc - b.doc).slice(0, 5))
    }
  })

  it('finds the k rows nearest a question among all of them, as sorting every positive cosine would, ties to the lower row', () => {
    let seed = 5
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1
    const dimensions = 64
    const question = Float32Array.from({ length: dimensions }, (_, i) => (i % 3 === 0 ? random() : 0))
    // Rows 10 to 19 repeat rows 0 to 9, which lie near the question (ties at the top); every
    // fourth row after them points away from it.
    const near = Array.from({ length: 10 }, () => question.map((value) => value + random() / 4))
    const vectors = Array.from({ length: 300 }, (_, doc) => (doc < 20 ? Float32Array.from(near[doc % 10]) : Float32Array.from({ length: dimensions }, () => random())))
    vectors.forEach((vector, doc) => {
      if (doc >= 20 && doc % 4 === 3) vector.forEach((_, i) => (vector[i] = -Math.sign(question[i])))
    })
    const rows = new Int8Array(vectors.length * dimensions)
    vectors.forEach((vector, row) => quantizeInto(vector, rows, row))
    const set = new SetVectors(rows, dimensions)
    const every = set.similarities(question, vectors.map((_, doc) => doc))
    const reference = (k: number) =>
      [...every.entries()]
        .filter(([, cosine]) => cosine > 0)
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, k)
        .map(([doc, cosine]) => ({ doc, cosine }))
    expect(reference(2).map(({ doc }) => doc % 10)).toEqual(Array(2).fill(reference(1)[0].doc))
    for (const k of [1, 2, 15, 50, 300]) expect(set.nearest(question, k)).toEqual(reference(k))
    expect(set.nearest(question, 300).length).toBeLessThan(300)
    expect(set.nearest(question, 300).some(({ doc }) => doc >= 20 && doc % 4 === 3)).toBe(false)
    expect(set.nearest(new Float32Array(dimensions), 10)).toEqual([])
  })

  const snippet = (pk: number, tokens: number, body: string): StoredSnippet => ({
    pk, setPk: 1, kind: 'info', title: `t${pk}`, description: '', breadcrumb: '', pageTitle: '', language: '', body, source: '', tokens, hash: String(pk), includes: [], alsoAt: [],
  })

  it('packs best first within the budget, skipping what does not fit and what nearly repeats a packed snippet', () => {
    const ranked = [snippet(1, 300, 'a'), snippet(2, 100, 'a again'), snippet(3, 900, 'b'), snippet(4, 100, 'c')]
    expect(packSnippets(ranked, 600).map((s) => s.pk)).toEqual([1, 2, 4])
    const nearDuplicate = (a: StoredSnippet, b: StoredSnippet) => a.body.startsWith(b.body)
    expect(packSnippets(ranked, 600, nearDuplicate).map((s) => s.pk)).toEqual([1, 4])
  })

  it('keeps the best snippet even when it alone is over budget', () => {
    expect(packSnippets([snippet(1, 900, 'a')], 500).map((s) => s.pk)).toEqual([1])
  })
})

describe('the lexical index', () => {
  const rows = [
    { title: 'Mount an application', context: 'Guide > Application', body: 'Call app.mount("#app") once the root component is created.' },
    { title: 'Application API', context: 'API', body: 'createApp(), app.mount(), app.unmount(), app.component() and app.use().' },
    { title: 'Unrelated', context: 'Misc', body: 'Nothing about the question lives here, only filler words.' },
  ]
  const index = LexicalIndex.build(rows)

  it('ranks by BM25F with field weights, and prefers snippets covering more of the question', () => {
    const hits = index.search(questionTerms('how do I mount the root component of my application'), 10)
    expect(hits.map((h) => h.doc)).toEqual([0, 1])
    expect(hits[0].score).toBeGreaterThan(hits[1].score)
    expect(index.search(questionTerms('zebra quantum'), 10)).toEqual([])
    expect(index.search([], 10)).toEqual([])
  })

  it('matches identifier parts and stems on both sides', () => {
    expect(index.search(questionTerms('unmounting'), 10).map((h) => h.doc)).toEqual([1])
    expect(index.search(questionTerms('createApp'), 10)[0].doc).toBe(1)
    expect(index.search(questionTerms('create app'), 10)[0].doc).toBe(1)
  })

  it('matches kebab-case and camelCase identifiers from the words of a question', () => {
    const styles = LexicalIndex.build([
      { title: 'A', context: '', body: '.card { max-width: 40rem; padding: 1rem }' },
      { title: 'B', context: '', body: 'useEffect(() => subscribe(id), [id])' },
      { title: 'C', context: '', body: '.card { color: red }' },
    ])
    expect(styles.search(questionTerms('limit the max width of a card'), 10)[0].doc).toBe(0)
    expect(styles.search(questionTerms('run an effect after render'), 10).map((h) => h.doc)).toEqual([1])
  })

  it('finds near-duplicate bodies by SimHash', () => {
    const pair = LexicalIndex.build([
      { title: 'a', context: '', body: 'const db = drizzle(client); await db.select().from(users).where(eq(users.id, 1))' },
      { title: 'b', context: '', body: 'const db = drizzle(client); await db.select().from(users).where(eq(users.id, 2))' },
      { title: 'c', context: '', body: 'Install the package with npm and configure the environment variables first.' },
    ])
    expect(pair.nearDuplicates(0, 1)).toBe(true)
    expect(pair.nearDuplicates(0, 2)).toBe(false)
  })
})
