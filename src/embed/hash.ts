import { validationError } from '../errors.js'
import type { Embedder } from './types.js'

/**
 * A deterministic feature-hashing embedder. It needs no model and no network, so it is the
 * default for tests and air-gapped installs; its vectors capture lexical overlap (words,
 * identifier parts, character 3-grams), not meaning.
 *
 * The tokenizer walks char codes directly and hashes ranges of the input instead of building
 * substrings, so embedding a text allocates little beyond its output vector.
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

// Char classes inside a token.
const SEP = 1
const UPPER = 2
const LOWER = 3
const DIGIT = 4

// Per code unit: 0 unknown, 1 token char, 2 not. Filled lazily for non-ASCII so the Unicode
// regex runs once per distinct char, not once per occurrence.
const tokenCharCache = new Uint8Array(65_536)
const lowerCache = new Map<number, number>()
const LETTER_OR_DIGIT = /^[\p{L}\p{N}\p{M}]$/u

function isTokenChar(c: number): boolean {
  if (c < 128) {
    return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || isSeparator(c)
  }
  // Surrogate halves: treat astral chars (CJK extensions, emoji) as part of words.
  if (c >= 0xd800 && c <= 0xdfff) return true
  let known = tokenCharCache[c]
  if (known === 0) {
    known = LETTER_OR_DIGIT.test(String.fromCharCode(c)) ? 1 : 2
    tokenCharCache[c] = known
  }
  return known === 1
}

/** `_ . - $` join identifier parts: snake_case, kebab-case, fs.readFile, $scope. */
function isSeparator(c: number): boolean {
  return c === 95 || c === 46 || c === 45 || c === 36
}

function lowerCode(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c
  let lower = lowerCache.get(c)
  if (lower === undefined) {
    const s = String.fromCharCode(c).toLowerCase()
    // Mappings that change length (e.g. U+0130) keep the original code unit.
    lower = s.length === 1 ? s.charCodeAt(0) : c
    lowerCache.set(c, lower)
  }
  return lower
}

function charClass(c: number): number {
  if (isSeparator(c)) return SEP
  if (c >= 48 && c <= 57) return DIGIT
  // Letters without case (CJK, marks) count as lower case: they never start a new part.
  return lowerCode(c) !== c ? UPPER : LOWER
}

/**
 * Calls `visit(start, end)` for each token: a maximal run of letters, digits and joiners,
 * trimmed of leading and trailing joiners (so `files.` and `__init__` give `files`, `init`).
 */
function forEachToken(text: string, visit: (start: number, end: number) => void): void {
  const n = text.length
  let i = 0
  while (i < n) {
    while (i < n && !isTokenChar(text.charCodeAt(i))) i++
    let start = i
    while (i < n && isTokenChar(text.charCodeAt(i))) i++
    let end = i
    while (start < end && isSeparator(text.charCodeAt(start))) start++
    while (end > start && isSeparator(text.charCodeAt(end - 1))) end--
    if (end > start) visit(start, end)
  }
}

let partBounds = new Int32Array(64)

/**
 * Splits the token at [start, end) into identifier parts and writes their [start, end) pairs
 * into `partBounds`; returns the number of parts. Splits at joiners, at a lower-case letter or
 * digit followed by an upper-case one (`useEffect`), and before the last capital of a run that
 * starts a word (`XMLHttp` -> XML, Http). Digits stay attached (`base64Encode` -> base64, Encode).
 */
function splitParts(text: string, start: number, end: number): number {
  if (partBounds.length < (end - start + 1) * 2) partBounds = new Int32Array((end - start + 1) * 2)
  let count = 0
  let partStart = -1
  let prev = SEP
  for (let i = start; i < end; i++) {
    const cls = charClass(text.charCodeAt(i))
    if (cls === SEP) {
      if (partStart >= 0) count = pushPart(count, partStart, i)
      partStart = -1
    } else {
      const capitalAfterWord = cls === UPPER && (prev === LOWER || prev === DIGIT)
      const capitalStartsWord =
        cls === UPPER && prev === UPPER && i + 1 < end && charClass(text.charCodeAt(i + 1)) === LOWER
      if (partStart >= 0 && (capitalAfterWord || capitalStartsWord)) {
        count = pushPart(count, partStart, i)
        partStart = i
      } else if (partStart < 0) {
        partStart = i
      }
    }
    prev = cls
  }
  if (partStart >= 0) count = pushPart(count, partStart, end)
  return count
}

function pushPart(count: number, start: number, end: number): number {
  partBounds[count * 2] = start
  partBounds[count * 2 + 1] = end
  return count + 1
}

/**
 * The words of `text` in order, lower-cased, each followed by its identifier parts when it has
 * more than one: `fs.readFile` -> `fs.readfile`, `fs`, `read`, `file`. Repeats are kept so
 * callers can count term frequencies.
 */
export function splitIdentifiers(text: string): string[] {
  const terms: string[] = []
  forEachToken(text, (start, end) => {
    terms.push(text.slice(start, end).toLowerCase())
    const parts = splitParts(text, start, end)
    if (parts < 2) return
    for (let p = 0; p < parts; p++) {
      terms.push(text.slice(partBounds[p * 2], partBounds[p * 2 + 1]).toLowerCase())
    }
  })
  return terms
}

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
      const parts = splitParts(text, start, end)
      if (parts < 2) {
        addNgrams(table, text, start, end)
        return
      }
      for (let p = 0; p < parts; p++) {
        const ps = partBounds[p * 2]
        const pe = partBounds[p * 2 + 1]
        table.add(hashRange(text, ps, pe, TERM_SEED), PART_WEIGHT)
        addNgrams(table, text, ps, pe)
      }
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
