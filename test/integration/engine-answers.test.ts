/**
 * The engine (sets loaded once from their engine file: lexical index, rendered blocks; token
 * counts from the rows; cached by bytes) against the ranking it implements, computed the plain way from SQLite rows
 * on every question: a fresh BM25F index, each candidate embedded again, the hash fusion, each section's code
 * brought beside its explanation, the packer and the
 * renderers applied to the rows. On a realistic library (fastify's docs, ingested through the
 * real git path) both give the same snippets in the same order, in both formats.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { CORPORA, buildCorpusRepo, ingestCorpora, libraryIdOf, redirectGitHub } from '../../bench/eval/corpora.js'
import { ANONYMOUS } from '../../src/library/access.js'
import { resolveConfig } from '../../src/config.js'
import { readQuestions } from '../../src/eval/questions.js'
import { engineFileKind, loadSet, loadSetFromBytes, type LoadedSet } from '../../src/index/loaded-set.js'
import { engineFilePath } from '../../src/install/paths.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { packSnippets } from '../../src/search/budget.js'
import { CANDIDATES, Retriever } from '../../src/search/context.js'
import { HASH_RESCORED, HASH_VECTOR_WEIGHT } from '../../src/search/fusion.js'
import { CODE_PER_SECTION, EXPLAINING, SECTION_CODE_WEIGHT } from '../../src/search/section-code.js'
import { quantizeInto, SetVectors } from '../../src/index/set-vectors.js'
import { embedText } from '../../src/index/embed-text.js'
import { LexicalIndex } from '../../src/index/lexical-index.js'
import { codeListOf, renderJson, renderJsonBuffer, renderSnippetText, renderText, TXT_SEPARATOR, type ContextResponse } from '../../src/index/render.js'
import { resolveLibraryVersion } from '../../src/search/resolve.js'
import { indexedTextOf } from '../../src/index/indexed-text.js'
import type { StoredSnippet } from '../../src/store/snippets.js'
import { questionTerms } from '../../src/text/terms.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const defer = suiteTeardown()
const FASTIFY = CORPORA.find((c) => c.name === 'fastify')!
let runtime: Runtime
let questions: string[]

beforeAll(async () => {
  const work = await tmpDir('lectern-engine-', defer)
  const repos = path.join(work, 'repos')
  fs.mkdirSync(repos)
  await buildCorpusRepo(FASTIFY, repos)
  defer(redirectGitHub(repos))
  runtime = await openRuntime({ config: resolveConfig({ dataDir: path.join(work, 'data') }).config })
  defer(() => runtime.close())
  await ingestCorpora(runtime, [FASTIFY.name])
  const all = await readQuestions(path.join(import.meta.dirname, '..', '..', 'bench', 'eval', 'questions.json'))
  questions = all.filter((q) => q.library === 'fastify').map((q) => q.question)
}, 120_000)

async function liveSet() {
  const { setPk } = await resolveLibraryVersion(runtime.store.libraries, libraryIdOf('fastify'), ANONYMOUS)
  return (await runtime.store.snippets.set(setPk))!
}

/** The ranking of the quality issue, straight from the rows, nothing precomputed or cached. */
async function reference(question: string, tokens: number): Promise<{ txt: string; json: ContextResponse }> {
  const set = await liveSet()
  const rows = await runtime.store.snippets.allOfSet(set.pk)
  const index = LexicalIndex.build(rows.map(indexedTextOf))
  const lexical = index.search(questionTerms(question), CANDIDATES)
  // The hash embedder's cosine, from each candidate's text embedded now and quantized as stored.
  const embedder = await runtime.embedders.forSet(set)
  const [vector] = await embedder.embed([question])
  const cosine = async (row: StoredSnippet) => {
    const [own] = await embedder.embed([embedText(row)])
    const stored = new Int8Array(own.length)
    quantizeInto(own, stored, 0)
    return new SetVectors(stored, own.length).similarities(vector, [0])[0]
  }
  const top = lexical[0]?.score ?? 0
  const scored = await Promise.all(lexical.map(async (hit) => ({ pk: rows[hit.doc].pk, score: top > 0 ? hit.score / top : 0, cosine: await cosine(rows[hit.doc]) })))
  for (const hit of [...scored].sort((a, b) => b.cosine - a.cosine || a.pk - b.pk).slice(0, HASH_RESCORED)) hit.score += HASH_VECTOR_WEIGHT * hit.cosine
  const scores = new Map(scored.map((hit) => [hit.pk, hit.score]))
  const docOf = new Map(rows.map((row, doc) => [row.pk, doc]))
  const byScore = () => [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0])
  // The best snippets bring their section's code (the rows with their source link) along.
  const candidates = byScore().slice(0, CANDIDATES)
  const rankOf = new Map(candidates.map(([pk], i) => [pk, i]))
  for (const [pk, score] of candidates.slice(0, EXPLAINING)) {
    const ranked = rows[docOf.get(pk)!]
    const code = rows.filter((row) => row.kind === 'code' && row.source === ranked.source)
    const first = code.sort((a, b) => (rankOf.get(a.pk) ?? Infinity) - (rankOf.get(b.pk) ?? Infinity) || a.pk - b.pk).slice(0, CODE_PER_SECTION)
    for (const row of first) scores.set(row.pk, Math.max(scores.get(row.pk) ?? 0, SECTION_CODE_WEIGHT[ranked.kind] * score))
  }
  const ranked = byScore()
  const packed = packSnippets(
    ranked.map(([pk]) => rows[docOf.get(pk)!]),
    tokens,
    (a, b) => index.nearDuplicates(docOf.get(a.pk)!, docOf.get(b.pk)!),
  )
  const json: ContextResponse = { codeSnippets: [], infoSnippets: [] }
  packed.forEach((s: StoredSnippet, i) => {
    const ranking = { rank: i + 1, score: Math.round(scores.get(s.pk)! * 1e6) / 1e6, ...(s.includes.length ? { includes: s.includes } : {}), ...(s.alsoAt.length ? { alsoAt: s.alsoAt } : {}) }
    if (s.kind === 'code') {
      json.codeSnippets.push({ codeTitle: s.title, codeDescription: s.description, codeLanguage: s.language, codeTokens: s.tokens, codeId: s.source, pageTitle: s.pageTitle, codeList: codeListOf(s), ...ranking })
    } else {
      json.infoSnippets.push({ pageId: s.source, breadcrumb: s.breadcrumb, content: s.body, contentTokens: s.tokens, ...ranking })
    }
  })
  return { txt: packed.map(renderSnippetText).join(TXT_SEPARATOR), json }
}

describe('the engine', () => {
  it('answers every question with the same snippets in the same order as the ranking computed from the rows', async () => {
    expect(questions.length).toBeGreaterThan(10)
    for (const tokens of [1000, 5000]) {
      for (const question of questions) {
        const answer = await runtime.retriever.getContext({ libraryId: libraryIdOf('fastify'), query: question, tokens, caller: ANONYMOUS })
        const expected = await reference(question, tokens)
        expect(renderText(answer.snippets, []), question).toBe(expected.txt)
        expect(renderJson(answer.snippets, [], answer.scores), question).toEqual(expected.json)
      }
    }
  }, 60_000)

  it('writes the engine file when the set is built, and answers the same from a damaged or foreign file, rewriting it', async () => {
    const set = await liveSet()
    const file = engineFilePath(runtime.store.paths, set.pk)
    expect(fs.statSync(file).size).toBeGreaterThan(1000)
    const question = questions[0]
    const ask = async () => {
      // A new retriever loads the set again, from the file as it is now.
      const retriever = new Retriever(runtime.store, runtime.embedders)
      const answer = await retriever.getContext({ libraryId: libraryIdOf('fastify'), query: question, tokens: 5000, caller: ANONYMOUS })
      return { txt: renderText(answer.snippets, []), json: JSON.parse(renderJsonBuffer(answer.snippets, [], answer.scores).toString()) as unknown }
    }
    const { txt, json } = await reference(question, 5000)
    const expected = { txt, json }
    expect(await ask()).toEqual(expected)
    const good = fs.readFileSync(file)

    // The body changed under an intact header (its rows' fingerprint) is caught by its CRC-32.
    const bodyDamaged = Buffer.from(good)
    for (let i = good.length - 64; i < good.length; i++) bodyDamaged[i] ^= 0xff
    // Sizes moved between the txt and JSON texts, the length kept: the CRC covers the header too.
    const sizesMoved = Buffer.from(good)
    sizesMoved.writeUInt32LE(sizesMoved.readUInt32LE(28) + 7, 28)
    sizesMoved.writeUInt32LE(sizesMoved.readUInt32LE(32) - 7, 32)
    // A file of the format before section numbers (2), as an upgrade finds it.
    const earlierFormat = Buffer.from(good)
    earlierFormat.writeUInt32LE(2, 4)
    for (const damage of [good.subarray(0, good.length >> 1), Buffer.from('not an index'), Buffer.alloc(0), Buffer.concat([Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]), good.subarray(8)]), bodyDamaged, sizesMoved, earlierFormat]) {
      fs.writeFileSync(file, damage)
      expect(await ask()).toEqual(expected)
      expect(fs.readFileSync(file).equals(good), 'the file is rewritten from the rows').toBe(true)
    }
    fs.rmSync(file)
    expect(await ask()).toEqual(expected)
    expect(fs.existsSync(file)).toBe(true)
    // A huge file with an intact header is refused on its size, never read whole.
    fs.writeFileSync(file, good.subarray(0, 64))
    fs.truncateSync(file, 2 ** 30 + 8)
    const heapBefore = process.memoryUsage().arrayBuffers
    expect(await ask()).toEqual(expected)
    expect(process.memoryUsage().arrayBuffers - heapBefore).toBeLessThan(2 ** 29)
    expect(fs.readFileSync(file).equals(good)).toBe(true)
    // A FIFO in its place would block a read forever: it is replaced.
    fs.rmSync(file)
    execFileSync('mkfifo', [file])
    expect(await ask()).toEqual(expected)
    expect(fs.readFileSync(file).equals(good)).toBe(true)
  })

  it('loads a set from its engine file and the rows\' heads alone, the same set as from the rows', async () => {
    const set = await liveSet()
    const file = engineFilePath(runtime.store.paths, set.pk)
    const heads = await runtime.store.snippets.headsOfSet(set.pk)
    const fromFile = await loadSet(set.pk, heads, engineFileKind(set), file, () => {
      throw new Error('a set whose engine file matches is loaded without reading its rows')
    })
    expect(fromFile.builtFrom).toBe('file')
    fs.rmSync(file)
    const fromRows = await loadSet(set.pk, heads, engineFileKind(set), file, () => runtime.store.snippets.allOfSet(set.pk))
    expect(fromRows.builtFrom).toBe('rows')
    const plain = (loaded: LoadedSet) =>
      loaded.snippets.all().map(({ pk, doc, kind, title, tokens, txt, json }) => ({ pk, doc, kind, title, tokens, txt: txt.toString(), json: json.toString() }))
    expect(plain(fromFile)).toEqual(plain(fromRows))
    expect(plain(fromFile).map(({ pk, kind, title, tokens }) => ({ pk, kind, title, tokens }))).toEqual(heads.map(({ pk, kind, title, tokens }) => ({ pk, kind, title, tokens })))
    for (const [doc, head] of heads.entries()) expect(fromFile.snippets.docOf(head.pk)).toBe(doc)
    expect(fromFile.snippets.docOf(heads.at(-1)!.pk + 1)).toBeUndefined()
    expect(plain(fromFile).map((s) => s.txt)).toEqual((await runtime.store.snippets.allOfSet(set.pk)).map(renderSnippetText))
    expect(fromFile.vectors?.dimensions).toBe(set.dimensions)
    // The same file's bytes at an address not a multiple of 4 (typed-array views need one).
    const bytes = fs.readFileSync(file)
    const unaligned = Buffer.alloc(bytes.length + 1).subarray(1)
    bytes.copy(unaligned)
    const fromUnaligned = loadSetFromBytes(set.pk, heads, engineFileKind(set), unaligned)
    expect(fromUnaligned && plain(fromUnaligned)).toEqual(plain(fromFile))

    // Re-embedded with another embedder, the set's file holds no vectors: the hash one is rebuilt.
    const rows = async () => await runtime.store.snippets.allOfSet(set.pk)
    const other = await loadSet(set.pk, heads, { hashDimensions: 0 }, file, rows)
    expect([other.builtFrom, other.vectors]).toEqual(['rows', undefined])
    expect((await loadSet(set.pk, heads, { hashDimensions: 0 }, file, rows)).builtFrom).toBe('file')
    expect((await loadSet(set.pk, heads, engineFileKind(set), file, rows)).builtFrom).toBe('rows')
  })

  it('counts a loaded set\'s bytes against the cache bound, keeping the set a request needs even over it', async () => {
    const set = await liveSet()
    const retriever = new Retriever(runtime.store, runtime.embedders, undefined, 'fused', 2 ** 20)
    await retriever.getContext({ libraryId: libraryIdOf('fastify'), query: questions[0], tokens: 5000, caller: ANONYMOUS })
    // One set over the bound stays (its request needs it) and is alone.
    expect(retriever.cacheStats()).toMatchObject({ sets: 1, maxBytes: 2 ** 20 })
    const roomy = new Retriever(runtime.store, runtime.embedders, undefined, 'fused', 2 ** 30)
    expect(await roomy.warm([set.pk])).toBe(1)
    const { bytes, sets } = roomy.cacheStats()
    expect(sets).toBe(1)
    expect(bytes).toBeGreaterThan(fs.statSync(engineFilePath(runtime.store.paths, set.pk)).size)
    roomy.forgetSet(set.pk)
    expect(roomy.cacheStats()).toMatchObject({ sets: 0, bytes: 0 })
  })
})
