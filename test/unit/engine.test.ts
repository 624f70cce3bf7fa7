import fs from 'node:fs'
import path from 'node:path'
import usearch from 'usearch'
import { describe, expect, it } from 'vitest'
import { workerConfig } from '../../server/cluster/primary.js'
import { resolveConfig } from '../../src/config.js'
import type { LoadedSet } from '../../src/index/loaded-set.js'
import { SetCache } from '../../src/index/set-cache.js'
import { LexicalIndex, type IndexedText } from '../../src/index/lexical-index.js'
import { inspectVectorFile, loadVectorIndex, writeVectorIndex } from '../../src/index/vector-index.js'
import { questionTerms } from '../../src/text/terms.js'
import { tmpDir } from '../helpers/tmp.js'

const WORDS = 'route hook plugin schema validate serialize logger request reply error handler decorate encapsulate stream body parse'.split(' ')

/** Documents of pseudo-random words, the same on every run. */
function documents(n: number): IndexedText[] {
  let seed = 7
  const next = () => (seed = (seed * 48271) % 2147483647)
  const words = (k: number) => Array.from({ length: k }, () => WORDS[next() % WORDS.length]).join(' ')
  return Array.from({ length: n }, () => ({ title: words(3), context: words(6), body: `${words(30)} useEffect max-width ünïcode` }))
}

/** Set bits of a 32-bit word, one at a time: the definition nearDuplicates must agree with. */
function popcount32(word: number): number {
  let bits = 0
  for (let i = 0; i < 32; i++) bits += (word >>> i) & 1
  return bits
}

describe('the lexical index file', () => {
  const index = LexicalIndex.build(documents(400))
  const questions = ['validate the request body', 'error handler for a plugin', 'use effect', 'max width', 'ünïcode stream', 'nothing matches zzz']

  it('reads back what it wrote: the same hits, scores and near-duplicates', () => {
    const read = LexicalIndex.fromBytes(index.toBytes())
    expect(read.size).toBe(index.size)
    for (const q of questions) expect(read.search(questionTerms(q), 50)).toEqual(index.search(questionTerms(q), 50))
    for (let a = 0; a < 50; a++) expect(read.nearDuplicates(a, a + 1)).toBe(index.nearDuplicates(a, a + 1))
  })

  it('writes the same bytes from terms (as ingest does) as from a built index', () => {
    expect(LexicalIndex.bytesOfTerms(documents(400).map(LexicalIndex.termsOf)).equals(index.toBytes())).toBe(true)
  })

  it('gives the same top hits with a heap as sorting every match, ties broken by document order', () => {
    // Every document twice: each score is tied at least once.
    const twice = LexicalIndex.build([...documents(150), ...documents(150)])
    for (const searched of [index, twice]) {
      for (const q of questions) {
        const all = searched.search(questionTerms(q), 10_000)
        expect([...all].sort((x, y) => y.score - x.score || x.doc - y.doc)).toEqual(all)
        for (const k of [1, 2, 5, 49, 50, 51]) expect(searched.search(questionTerms(q), k)).toEqual(all.slice(0, k))
      }
    }
  })

  it('scores a question alike whatever was searched before it: more hits, more terms, another index', () => {
    // Searches share their accumulators, heap and coverage factors; none may carry over.
    const other = LexicalIndex.build(documents(30))
    const manyTerms = [...WORDS, 'alpha', 'beta', 'gamma', 'delta', 'epsilon']
    const alone = questions.map((q) => LexicalIndex.build(documents(400)).search(questionTerms(q), 7))
    for (const [i, q] of questions.entries()) {
      index.search(manyTerms, 10_000)
      other.search(questionTerms(questions[(i + 1) % questions.length]), 2)
      expect(index.search(questionTerms(q), 7)).toEqual(alone[i])
    }
    expect(index.search(manyTerms, 3)).toEqual(index.search(manyTerms, 10_000).slice(0, 3))
  })

  it('scales a score by the share of the question matched, (matched / terms)^0.5, for short and long term lists', () => {
    const alone = new Map(index.search(['plugin'], 10_000).map((hit) => [hit.doc, hit.score]))
    expect(alone.size).toBeGreaterThan(0)
    // One term matched of `terms` (the others occur nowhere), in an order that reuses tables.
    for (const terms of [2, 20, 1, 5, 2, 20]) {
      const asked = ['plugin', ...Array.from({ length: terms - 1 }, (_, i) => `absent${i}`)]
      const hits = index.search(asked, 10_000)
      expect(hits.length).toBe(alone.size)
      for (const hit of hits) expect(hit.score).toBeCloseTo(alone.get(hit.doc)! * Math.sqrt(1 / terms), 12)
    }
  })

  it('refuses bytes that are not a whole index of this format', () => {
    const bytes = index.toBytes()
    const flipped = Buffer.from(bytes)
    flipped.writeUInt32LE(99, 4)
    const badDoc = Buffer.from(bytes)
    // The first posting's document, past the header, SimHashes and term offsets.
    const [, , size, terms] = [0, 1, 2, 3].map((i) => bytes.readUInt32LE(i * 4))
    badDoc.writeInt32LE(size + 5, (6 + size * 2 + terms + 1) * 4)
    for (const bad of [bytes.subarray(0, 10), bytes.subarray(0, bytes.length - 3), Buffer.from('LXIX but no'), flipped, badDoc]) {
      expect(() => LexicalIndex.fromBytes(bad)).toThrow()
    }
  })

  it('refuses a vocabulary or postings that do not add up, each for its reason', () => {
    // Terms in order of first use: alpha (docs 0, 1, 2), beta (0), gamma (1), delta (2).
    const small = LexicalIndex.build(['alpha beta', 'alpha gamma', 'alpha delta'].map((title) => ({ title, context: '', body: '' }))).toBytes()
    const [, , size, terms, total] = [0, 1, 2, 3, 4].map((i) => small.readUInt32LE(i * 4))
    const offsetAt = (t: number) => (6 + size * 2 + t) * 4
    const docAt = (i: number) => (6 + size * 2 + terms + 1 + i) * 4
    const textAt = docAt(total * 2)
    expect(small.toString('utf8', textAt)).toBe('alpha\nbeta\ngamma\ndelta')
    const broken = (change: (bytes: Buffer) => void) => {
      const bytes = Buffer.from(small)
      change(bytes)
      return () => LexicalIndex.fromBytes(bytes)
    }
    expect(LexicalIndex.fromBytes(Buffer.from(small)).search(['gamma'], 5)).toEqual([{ doc: 1, score: expect.any(Number) }])
    expect(broken((b) => b.write('\n', textAt + 2))).toThrow('wrong term count')
    expect(broken((b) => b.write('gamma', textAt + 17))).toThrow('a term twice')
    expect(broken((b) => b.writeUInt32LE(1, offsetAt(0)))).toThrow('bad offsets')
    expect(broken((b) => b.writeUInt32LE(total - 1, offsetAt(terms)))).toThrow('bad offsets')
    expect(broken((b) => b.writeUInt32LE(2, offsetAt(2)))).toThrow('bad offsets')
    expect(broken((b) => b.writeInt32LE(0, docAt(1)))).toThrow('bad posting')
    expect(broken((b) => b.writeInt32LE(size, docAt(2)))).toThrow('bad posting')
  })

  it('reads an index from a buffer that is not 4-byte aligned', () => {
    const bytes = index.toBytes()
    const unaligned = Buffer.alloc(bytes.length + 1).subarray(1)
    bytes.copy(unaligned)
    expect(unaligned.byteOffset % 4).not.toBe(0)
    const read = LexicalIndex.fromBytes(unaligned)
    for (const q of questions) expect(read.search(questionTerms(q), 50)).toEqual(index.search(questionTerms(q), 50))
  })

  it('finds a question term longer in UTF-8 than the buffer it is encoded into', () => {
    const wide = '中'.repeat(100)
    const read = LexicalIndex.fromBytes(LexicalIndex.build([{ title: 'other', context: '', body: '' }, { title: wide, context: '', body: '' }]).toBytes())
    expect(read.search(questionTerms(wide), 5).map((hit) => hit.doc)).toEqual([1])
  })

  it('finds every term of a large vocabulary, long and non-ASCII terms included, and no other', () => {
    const term = (i: number) => `t${i.toString(36)}x${'é'.repeat(i % 3)}`
    const long = 'a'.repeat(300)
    const rows = Array.from({ length: 5000 }, (_, i) => ({ title: term(i), context: '', body: i === 0 ? long : '' }))
    for (const read of [LexicalIndex.build(rows), LexicalIndex.fromBytes(LexicalIndex.build(rows).toBytes())]) {
      for (let i = 0; i < 5000; i += 7) expect(read.search(questionTerms(term(i)), 5).map((hit) => hit.doc)).toEqual([i])
      expect(read.search([long], 5).map((hit) => hit.doc)).toEqual([0])
      expect(read.search(['t0', 'zz', long.slice(1)], 5)).toEqual([])
    }
  })

  it('calls two bodies near-duplicates exactly when their SimHashes differ in at most 3 of 64 bits', () => {
    // Near and far pairs: a body, the same with a word or two changed, and unrelated ones.
    const base = documents(60)
    const rows = [...base, ...base.map((d, i) => ({ ...d, body: i % 2 ? d.body.replace(/\w+$/, 'plugin') : `${d.body} reply` }))]
    const near = LexicalIndex.build(rows)
    const bytes = near.toBytes()
    const hash = (doc: number, half: number) => bytes.readUInt32LE((6 + doc * 2 + half) * 4)
    let nearPairs = 0
    for (let a = 0; a < rows.length; a++) {
      for (let b = 0; b < rows.length; b++) {
        const bits = [0, 1].reduce((sum, half) => sum + popcount32(hash(a, half) ^ hash(b, half)), 0)
        expect(near.nearDuplicates(a, b), `${a} ${b}`).toBe(bits <= 3)
        if (a !== b && bits <= 3) nearPairs++
      }
    }
    expect(nearPairs).toBeGreaterThan(0)
  })

  it('has an empty form', () => {
    const empty = LexicalIndex.fromBytes(LexicalIndex.build([]).toBytes())
    expect(empty.size).toBe(0)
    expect(empty.search(['route'], 5)).toEqual([])
  })
})

describe('the set cache', () => {
  const set = (setPk: number, bytes: number) => ({ setPk, bytes }) as LoadedSet

  it('drops the least recently used sets when over its bound', () => {
    const cache = new SetCache(100)
    cache.put(set(1, 40))
    cache.put(set(2, 40))
    expect(cache.get(1)?.setPk).toBe(1)
    cache.put(set(3, 40))
    expect(cache.has(2)).toBe(false)
    expect(cache.has(1) && cache.has(3)).toBe(true)
    expect(cache.stats()).toEqual({ bytes: 80, sets: 2, maxBytes: 100 })
  })

  it('keeps a set larger than the bound, alone', () => {
    const cache = new SetCache(100)
    cache.put(set(1, 40))
    cache.put(set(2, 250))
    expect(cache.stats()).toMatchObject({ bytes: 250, sets: 1 })
    cache.forget(2)
    expect(cache.stats()).toMatchObject({ bytes: 0, sets: 0 })
  })
})

describe('vector index files', () => {
  const vectors = Array.from({ length: 300 }, (_, i) => Float32Array.from({ length: 32 }, (_, j) => Math.sin(i * 7 + j * 3) + (j === i % 32 ? 2 : 0)))
  const keys = vectors.map((_, i) => i + 1)

  it('are written quantized to i8, and files of f32 vectors from before still load and answer alike', async () => {
    const dir = await tmpDir()
    const file = path.join(dir, 'set-1.usearch')
    writeVectorIndex(file, { provider: 'hash', model: 'hash-v1' }, 32, keys, vectors)
    expect(fs.readFileSync(file).readUInt32LE(4)).toBe(32)

    const old = path.join(dir, 'set-2.usearch')
    const f32 = new usearch.Index({ dimensions: 32, metric: usearch.MetricKind.Cos, quantization: usearch.ScalarKind.F32, connectivity: 8, expansion_add: 32, expansion_search: 64, multi: false })
    f32.add(BigUint64Array.from(keys, BigInt), Float32Array.from(vectors.flatMap((v) => [...v])))
    f32.save(old)
    fs.writeFileSync(`${old}.json`, JSON.stringify({ provider: 'hash', model: 'hash-v1', dimensions: 32, count: keys.length, bytes: fs.statSync(old).size }))
    expect(fs.readFileSync(old).readUInt32LE(4)).toBe(32 * 4)

    for (const written of [file, old]) {
      expect(inspectVectorFile(written, { dimensions: 32, count: keys.length })).toBeUndefined()
      const index = loadVectorIndex(written, { dimensions: 32, count: keys.length })
      for (const probe of [0, 17, 250]) expect(index.search(vectors[probe], 3)[0].pk).toBe(probe + 1)
    }
    expect(inspectVectorFile(file, { dimensions: 16, count: keys.length })).toMatch(/expected 300 of 16/)
  })
})

describe('the cache bound with --workers', () => {
  it('is shared among the worker processes', () => {
    const { config } = resolveConfig({ server: { workers: 4 as never }, search: { cacheSize: '2GB' as never } }, {})
    expect(config.search.cacheSize).toBe(2 * 2 ** 30)
    expect(workerConfig(config).search.cacheSize).toBe(2 ** 29)
    expect(workerConfig(config).server).toEqual(config.server)
    // Never below the setting's minimum, which each worker checks again.
    const small = resolveConfig({ server: { workers: 4 as never }, search: { cacheSize: '2MB' as never } }, {}).config
    expect(workerConfig(small).search.cacheSize).toBe(2 ** 20)
  })
})
