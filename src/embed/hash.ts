import { validationError } from '../errors.js'
import { forEachPart, forEachToken, lowerCode } from '../text/tokenizer.js'
import type { Embedder } from './types.js'

/**
 * A deterministic feature-hashing embedder. It needs no model and no network, so it is the
 * default for tests and air-gapped installs; its vectors capture lexical overlap (words,
 * identifier parts, character 3-grams), not meaning. It hashes the ranges src/text/tokenizer.ts
 * reports instead of building substrings, so embedding a text allocates little beyond its vector.
 */

export const HASH_MODEL = 'hash-v1'
export const HASH_DEFAULT_DIMENSIONS = 384
const MAX_DIMENSIONS = 65_536

const WORD_WEIGHT = 1
const PART_WEIGHT = 0.8
const NGRAM_WEIGHT = 0.3

// Words and identifier parts share a seed so that `read` in `readFile` matches the word `read`;
// n-grams get their own so a 3-letter word never collides with a 3-gram of a longer one.
const TERM_SEED = 0x811c9dc5
const NGRAM_SEED = 0x9747b28c
// Boundary markers for n-grams; control codes never occur inside a token.
const WORD_START = 0x02
const WORD_END = 0x03

/** FNV-1a over the lower-cased code units of text[start, end). */
function hashRange(text: string, start: number, end: number, seed: number): number {
  let h = seed
  for (let i = start; i < end; i++) h = Math.imul(h ^ lowerCode(text.charCodeAt(i)), 0x01000193)
  return h >>> 0
}

function hashTriple(a: number, b: number, c: number): number {
  let h = Math.imul(NGRAM_SEED ^ a, 0x01000193)
  h = Math.imul(h ^ b, 0x01000193)
  return Math.imul(h ^ c, 0x01000193) >>> 0
}

/** murmur3's finaliser: FNV-1a's low bits are weak, and we take index and sign from them. */
function mix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/**
 * Open-addressing table from feature hash to (summed weight, count), reused across texts so
 * term frequencies can be made sub-linear without a Map entry per feature.
 */
class FeatureTable {
  private keys = new Uint32Array(1024)
  private weights = new Float64Array(1024)
  private counts = new Uint32Array(1024)
  private used = new Int32Array(512)
  private size = 0

  add(key: number, weight: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.grow()
    const mask = this.keys.length - 1
    let slot = key & mask
    while (this.counts[slot] !== 0 && this.keys[slot] !== key) slot = (slot + 1) & mask
    if (this.counts[slot] === 0) {
      this.keys[slot] = key
      this.used[this.size++] = slot
    }
    this.weights[slot] += weight
    this.counts[slot]++
  }

  /** Writes the features into `out` (signed, with 1 + ln(tf) damping) and empties the table. */
  drainInto(out: Float32Array): void {
    for (let i = 0; i < this.size; i++) {
      const slot = this.used[i]
      const count = this.counts[slot]
      const h = mix(this.keys[slot])
      // Mean weight of the feature's occurrences times damped tf: a word that is also an
      // identifier part elsewhere keeps a weight between the two.
      const value = (this.weights[slot] / count) * (1 + Math.log(count))
      out[(h >>> 1) % out.length] += h & 1 ? value : -value
      this.counts[slot] = 0
      this.weights[slot] = 0
    }
    this.size = 0
  }

  private grow(): void {
    const { keys, weights, counts, used, size } = this
    const capacity = keys.length * 2
    this.keys = new Uint32Array(capacity)
    this.weights = new Float64Array(capacity)
    this.counts = new Uint32Array(capacity)
    this.used = new Int32Array(capacity / 2)
    this.size = 0
    const mask = capacity - 1
    for (let i = 0; i < size; i++) {
      const old = used[i]
      let slot = keys[old] & mask
      while (this.counts[slot] !== 0) slot = (slot + 1) & mask
      this.keys[slot] = keys[old]
      this.weights[slot] = weights[old]
      this.counts[slot] = counts[old]
      this.used[this.size++] = slot
    }
  }
}

export class HashEmbedder implements Embedder {
  readonly provider = 'hash'
  readonly model = HASH_MODEL
  private readonly dims: number
  private readonly table = new FeatureTable()

  constructor(settings: { dimensions?: number; model?: string } = {}) {
    const dims = settings.dimensions ?? HASH_DEFAULT_DIMENSIONS
    if (!Number.isInteger(dims) || dims < 1 || dims > MAX_DIMENSIONS) {
      throw validationError(`Hash embedder dimensions must be an integer from 1 to ${MAX_DIMENSIONS}, got ${dims}.`)
    }
    if (settings.model !== undefined && settings.model !== HASH_MODEL) {
      throw validationError(`The hash embedder has one model, "${HASH_MODEL}", not "${settings.model}".`)
    }
    this.dims = dims
  }

  async dimensions(): Promise<number> {
    return this.dims
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = []
    for (const text of texts) {
      signal?.throwIfAborted()
      vectors.push(this.embedOne(text))
    }
    return vectors
  }

  /** Synchronous core, also handy for benchmarks. */
  embedOne(text: string): Float32Array {
    const table = this.table
    forEachToken(text, (start, end) => {
      table.add(hashRange(text, start, end, TERM_SEED), WORD_WEIGHT)
      const parts = forEachPart(text, start, end, (ps, pe) => {
        table.add(hashRange(text, ps, pe, TERM_SEED), PART_WEIGHT)
        addNgrams(table, text, ps, pe)
      })
      if (parts < 2) addNgrams(table, text, start, end)
    })
    const out = new Float32Array(this.dims)
    table.drainInto(out)
    normalise(out)
    return out
  }
}

/** 3-grams of text[start, end) lower-cased, with start and end markers: `^fs`, `fs$`. */
function addNgrams(table: FeatureTable, text: string, start: number, end: number): void {
  let a = WORD_START
  let b = lowerCode(text.charCodeAt(start))
  for (let i = start + 1; i <= end; i++) {
    const c = i < end ? lowerCode(text.charCodeAt(i)) : WORD_END
    table.add(hashTriple(a, b, c), NGRAM_WEIGHT)
    a = b
    b = c
  }
}

function normalise(v: Float32Array): void {
  let sum = 0
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i]
  if (sum === 0) return
  const scale = 1 / Math.sqrt(sum)
  for (let i = 0; i < v.length; i++) v[i] *= scale
}
