/**
 * The lexical ranking of one snippet set, in memory: BM25F over three fields (a snippet's title;
 * its context: description, breadcrumb, page title and included file paths; its body: the code
 * or the prose), scaled by how much of the question a snippet covers.
 *
 * BM25F (field-weighted term frequencies, each normalised by its field's length, then saturated
 * once) ranks better than per-field BM25 summed, and the coverage factor
 * (matched terms / question terms)^0.5 prefers a snippet that answers the whole question over
 * one that repeats one of its words; both measured on the development set (bench/RESULTS.md).
 * Every weight is computed when the index is built, so a query adds precomputed impacts.
 */
import { MAX_QUESTION_TERMS, indexTerms } from '../text/terms.js'

/** Field weights of BM25F: the title says most about a snippet, the body least per word. */
export const FIELD_WEIGHTS = { title: 4, context: 2, body: 1 } as const
const K1 = 1.2
const B = 0.75
const COVERAGE_EXPONENT = 0.5
/** Bodies whose SimHashes differ in at most this many of 64 bits are near-duplicates. */
const NEAR_DUPLICATE_BITS = 3

export interface IndexedText {
  title: string
  context: string
  body: string
}

export interface LexicalHit {
  /** Position of the snippet in the rows the index was built from. */
  doc: number
  score: number
}

/**
 * A set's terms and their postings as flat arrays, outside the JavaScript heap: a million loaded
 * snippets have millions of terms, and as strings and objects on the heap every garbage
 * collection, even a minor one, slowed with them (4 ms a scavenge at 1M, bench/RESULTS.md).
 */
interface Vocabulary {
  /** The terms as UTF-8, newline-separated (terms are letters and digits only). */
  text: Buffer
  /** Each term's postings: documents `docs[offsets[t]..offsets[t + 1]]` and their impacts. */
  offsets: Uint32Array
  docs: Int32Array
  impacts: Float32Array
}

/** File format of a serialized index: a magic word and its version, then the sections below. */
const MAGIC = 0x4c58_4958 // "LXIX"
const FORMAT = 1
const HEADER_WORDS = 6
const NEWLINE = 0x0a

const INDEXED_FIELDS = ['title', 'context', 'body'] as const

/** A question term as UTF-8, reused: a lookup encodes its term here instead of allocating. */
const termScratch = Buffer.allocUnsafe(256)

/**
 * A query's accumulators, shared by every index of the thread (a search runs to its end before
 * another starts) and grown to the largest index searched: with a thousand sets loaded, arrays of
 * their own were cold in the processor's cache at each request, these stay warm. All zero between
 * queries: a query clears what it wrote. 13 bytes a document of the largest set searched, kept
 * for the thread's life and not counted against the cache bound (130 KB for 10,000 snippets).
 */
const scratch = { scores: new Float64Array(0), matched: new Uint8Array(0), touched: new Int32Array(0) }

function scratchFor(size: number): typeof scratch {
  if (scratch.scores.length < size) {
    scratch.scores = new Float64Array(size)
    scratch.matched = new Uint8Array(size)
    scratch.touched = new Int32Array(size)
  }
  return scratch
}

export class LexicalIndex {
  /** Where each term starts in `text`, and one past the end of the text last. */
  private readonly starts: Uint32Array
  /** Open-addressing hash table of the terms: a term's number plus one, 0 where empty. */
  private readonly slots: Int32Array

  private constructor(
    /** Read by `encode`, beside the class. */
    readonly vocabulary: Vocabulary,
    readonly size: number,
    /** 64-bit SimHash of each body's terms (two words a snippet), for near-duplicate checks. */
    readonly simhashes: Uint32Array,
    /** Bytes of the vocabulary this index holds apart from the buffer it was read from. */
    private readonly ownVocabularyBytes: number,
  ) {
    const terms = vocabulary.offsets.length - 1
    this.starts = termStarts(vocabulary.text, terms)
    this.slots = new Int32Array(2 ** Math.ceil(Math.log2(Math.max(2, terms * 2))))
    const mask = this.slots.length - 1
    for (let t = 0; t < terms; t++) {
      const from = this.starts[t]
      const to = this.starts[t + 1] - 1
      let slot = hashBytes(vocabulary.text, from, to) & mask
      for (; this.slots[slot] !== 0; slot = (slot + 1) & mask) {
        if (this.sameTerm(this.slots[slot] - 1, vocabulary.text, from, to)) throw new Error('lexical index file has a term twice')
      }
      this.slots[slot] = t + 1
    }
  }

  static build(rows: readonly IndexedText[]): LexicalIndex {
    return LexicalIndex.fromTerms(rows.map(LexicalIndex.termsOf))
  }

  /** One document's terms, by field: the tokenizing half of `build`, done a document at a time by a job that paces itself. */
  static termsOf(row: IndexedText): string[][] {
    return INDEXED_FIELDS.map((f) => indexTerms(row[f]))
  }

  /** The index of documents whose terms `termsOf` gave, in document order. */
  static fromTerms(terms: readonly string[][][]): LexicalIndex {
    const { vocabulary, size, simhashes } = weigh(terms)
    const { text, offsets, docs, impacts } = vocabulary
    return new LexicalIndex(vocabulary, size, simhashes, text.length + offsets.byteLength + docs.byteLength + impacts.byteLength)
  }

  /**
   * The bytes `fromTerms(terms).toBytes()` would give, without building the term table that only
   * a search needs: what ingest writes into a set's engine file.
   */
  static bytesOfTerms(terms: readonly string[][][]): Buffer {
    return encode(weigh(terms))
  }

  /**
   * The index as bytes, to be read back by `fromBytes` without tokenizing a document again:
   * header, SimHashes, each term's postings offset, postings (documents, then impacts), and the
   * terms themselves as one newline-separated UTF-8 text.
   */
  toBytes(): Buffer {
    return encode(this)
  }

  /**
   * Reads `toBytes` output; refuses (throws) anything else, so a caller rebuilds from the rows.
   * The index keeps views of `bytes` (copied first only if not 4-byte aligned).
   */
  static fromBytes(bytes: Buffer): LexicalIndex {
    if (bytes.length < HEADER_WORDS * 4) throw new Error('lexical index file is truncated')
    // Typed arrays need aligned offsets: a buffer that is not gets copied into one that is.
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
    const words = new Uint32Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.length / 4))
    const [magic, format, size, termCount, total, textBytes] = words
    if (magic !== MAGIC || format !== FORMAT) throw new Error('not a lexical index file of this version')
    const simAt = HEADER_WORDS
    const offAt = simAt + size * 2
    const docsAt = offAt + termCount + 1
    const impactsAt = docsAt + total
    const textAt = (impactsAt + total) * 4
    if (textAt + textBytes !== bytes.length) throw new Error('lexical index file has the wrong length')
    const simhashes = words.slice(simAt, offAt)
    const offsets = words.subarray(offAt, docsAt)
    const docs = new Int32Array(aligned.buffer, aligned.byteOffset + docsAt * 4, total)
    const impacts = new Float32Array(aligned.buffer, aligned.byteOffset + impactsAt * 4, total)
    const text = aligned.subarray(textAt, textAt + textBytes)
    if (countTerms(text) !== termCount) throw new Error('lexical index file has the wrong term count')
    if (offsets[0] !== 0 || offsets[termCount] !== total) throw new Error('lexical index file has bad offsets')
    for (let t = 0; t < termCount; t++) {
      if (offsets[t] > offsets[t + 1]) throw new Error('lexical index file has bad offsets')
      // A term's documents ascend (fromTerms writes them so): none is counted twice for a term.
      for (let i = offsets[t], previous = -1; i < offsets[t + 1]; previous = docs[i++]) {
        if (docs[i] <= previous || docs[i] >= size) throw new Error('lexical index file has a bad posting')
      }
    }
    return new LexicalIndex({ text, offsets, docs, impacts }, size, simhashes, aligned === bytes ? 0 : aligned.length)
  }

  /** Bytes this index holds in memory beyond the buffer it was read from, roughly: what a cache bounded by bytes counts. */
  get bytes(): number {
    return this.simhashes.byteLength + this.starts.byteLength + this.slots.byteLength + this.ownVocabularyBytes
  }

  /** The best `limit` snippets for the question's terms, best first; only snippets matching a term. */
  search(questionTerms: readonly string[], limit: number): LexicalHit[] {
    if (questionTerms.length === 0 || this.size === 0 || !(limit >= 1)) return []
    // `touched`: the documents matched, in the order first matched.
    const { scores, matched, touched } = scratchFor(this.size)
    const { offsets, docs, impacts } = this.vocabulary
    let count = 0
    for (const term of questionTerms) {
      const t = this.termNumber(term)
      if (t < 0) continue
      for (let i = offsets[t], end = offsets[t + 1]; i < end; i++) {
        const doc = docs[i]
        if (matched[doc] === 0) touched[count++] = doc
        scores[doc] += impacts[i]
        matched[doc]++
      }
    }
    // Top `limit` by a bounded min-heap (worst kept at the root), then the scratch is cleared
    // where it was written, so a query costs its matches, not the set's size.
    const heap = topK.reset(Math.min(Math.floor(limit), count))
    const coverage = coverageFactors(questionTerms.length)
    for (let t = 0; t < count; t++) {
      const doc = touched[t]
      heap.offer(doc, scores[doc] * coverage[Math.min(matched[doc], questionTerms.length)])
      scores[doc] = 0
      matched[doc] = 0
    }
    return heap.sorted()
  }

  /**
   * Whether two snippets' bodies are near-duplicates (SimHash within 3 bits of 64). Packing asks
   * it of every candidate against every snippet packed before it, a thousand pairs a request, and
   * most pairs differ in half their bits: the second half is counted only when the first leaves
   * room. The bits are counted without a loop, whose exit the processor could not predict.
   */
  nearDuplicates(a: number, b: number): boolean {
    const { simhashes } = this
    const bits = popcount(simhashes[a * 2] ^ simhashes[b * 2])
    return bits <= NEAR_DUPLICATE_BITS && bits + popcount(simhashes[a * 2 + 1] ^ simhashes[b * 2 + 1]) <= NEAR_DUPLICATE_BITS
  }

  /** The term's number in the vocabulary, or -1. */
  private termNumber(term: string): number {
    const key = term.length * 3 <= termScratch.length ? termScratch : Buffer.from(term, 'utf8')
    const length = key === termScratch ? termScratch.write(term, 'utf8') : key.length
    const { slots } = this
    const mask = slots.length - 1
    for (let slot = hashBytes(key, 0, length) & mask; slots[slot] !== 0; slot = (slot + 1) & mask) {
      if (this.sameTerm(slots[slot] - 1, key, 0, length)) return slots[slot] - 1
    }
    return -1
  }

  /** Whether term `t` is the UTF-8 text `bytes[from..to)`. */
  private sameTerm(t: number, bytes: Buffer, from: number, to: number): boolean {
    const start = this.starts[t]
    const length = to - from
    return this.starts[t + 1] - 1 - start === length && this.vocabulary.text.compare(bytes, from, to, start, start + length) === 0
  }
}

/** What an index is made of, whether built from terms or read from bytes. */
interface IndexData {
  vocabulary: Vocabulary
  size: number
  simhashes: Uint32Array
}

/** BM25F weights of the documents whose terms `termsOf` gave: each term's postings with their impacts, and each body's SimHash. */
function weigh(terms: readonly string[][][]): IndexData {
  const fields = INDEXED_FIELDS
  const n = terms.length
  const average = fields.map((_, fi) => terms.reduce((sum, t) => sum + t[fi].length, 0) / Math.max(1, n) || 1)
  // Per document: term -> field-weighted, length-normalised frequency.
  const weighted = new Map<string, Array<[number, number]>>()
  const simhashes = new Uint32Array(n * 2)
  terms.forEach((docTerms, doc) => {
    const tf = new Map<string, number>()
    docTerms.forEach((fieldTerms, fi) => {
      const norm = FIELD_WEIGHTS[fields[fi]] / (1 - B + (B * fieldTerms.length) / average[fi])
      for (const term of fieldTerms) tf.set(term, (tf.get(term) ?? 0) + norm)
    })
    for (const [term, value] of tf) {
      let list = weighted.get(term)
      if (!list) weighted.set(term, (list = []))
      list.push([doc, value])
    }
    simhash(docTerms[2], simhashes, doc)
  })
  let total = 0
  for (const list of weighted.values()) total += list.length
  const offsets = new Uint32Array(weighted.size + 1)
  const docs = new Int32Array(total)
  const impacts = new Float32Array(total)
  let at = 0
  let t = 0
  for (const list of weighted.values()) {
    const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5))
    offsets[t++] = at
    for (const [doc, tf] of list) {
      docs[at] = doc
      impacts[at++] = (idf * tf * (K1 + 1)) / (tf + K1)
    }
  }
  offsets[t] = at
  const text = Buffer.from([...weighted.keys()].join('\n'), 'utf8')
  return { vocabulary: { text, offsets, docs, impacts }, size: n, simhashes }
}

/** The bytes `fromBytes` reads (LexicalIndex.toBytes). */
function encode({ vocabulary, size, simhashes }: IndexData): Buffer {
  const { text, offsets, docs, impacts } = vocabulary
  const header = Uint32Array.of(MAGIC, FORMAT, size, offsets.length - 1, docs.length, text.length)
  return Buffer.concat([header, simhashes, offsets, docs, impacts].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)).concat(text))
}

function countTerms(text: Buffer): number {
  if (text.length === 0) return 0
  let terms = 1
  for (let i = 0; i < text.length; i++) if (text[i] === NEWLINE) terms++
  return terms
}

/** Where each of the `terms` newline-separated terms starts in `text`, then `text.length + 1`. */
function termStarts(text: Buffer, terms: number): Uint32Array {
  const starts = new Uint32Array(terms + 1)
  let t = 1
  for (let i = 0; i < text.length; i++) if (text[i] === NEWLINE) starts[t++] = i + 1
  starts[terms] = text.length + 1
  return starts
}

/** The set bits of a 32-bit integer (the classic parallel count: pairs, nibbles, then bytes summed by a multiply). */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24)
}

/** 32-bit FNV-1a of `bytes[from..to)`. */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193)
  return hash >>> 0
}

/**
 * The best k hits seen, in a binary min-heap whose root is the worst of them ("worst": the lower
 * score, then the later document). Kept in typed arrays, not objects: a query offers every
 * document it matched, hundreds, and most are turned away by one comparison with the root. One
 * heap serves every query of the thread (`topK`), as the accumulators do: a query empties it
 * before the next starts, and typed arrays allocated per query cost more than filling them.
 */
class TopK {
  private docs = new Int32Array(0)
  private scores = new Float64Array(0)
  private size = 0
  private k = 0

  /** Empties the heap to keep the best `k` (sorted() leaves it empty too; a search starts here all the same). */
  reset(k: number): this {
    if (this.docs.length < k) {
      this.docs = new Int32Array(k)
      this.scores = new Float64Array(k)
    }
    this.k = k
    this.size = 0
    return this
  }

  offer(doc: number, score: number): void {
    const { docs, scores, k } = this
    if (this.size < k) {
      let i = this.size++
      while (i > 0) {
        const parent = (i - 1) >> 1
        if (!worse(doc, score, docs[parent], scores[parent])) break
        docs[i] = docs[parent]
        scores[i] = scores[parent]
        i = parent
      }
      docs[i] = doc
      scores[i] = score
      return
    }
    if (worse(doc, score, docs[0], scores[0])) return
    this.replaceRoot(doc, score, k)
  }

  /** The hits best first, emptying the heap: its root (the worst) taken off until none is left, no comparator calls. */
  sorted(): LexicalHit[] {
    const hits = new Array<LexicalHit>(this.size)
    while (this.size > 0) {
      const last = --this.size
      hits[last] = { doc: this.docs[0], score: this.scores[0] }
      this.replaceRoot(this.docs[last], this.scores[last], last)
    }
    return hits
  }

  /** Puts a hit at the root of the heap's first `size` entries and sifts it down to its place. */
  private replaceRoot(doc: number, score: number, size: number): void {
    const { docs, scores } = this
    let i = 0
    for (;;) {
      const left = 2 * i + 1
      if (left >= size) break
      const right = left + 1
      const child = right < size && worse(docs[right], scores[right], docs[left], scores[left]) ? right : left
      if (!worse(docs[child], scores[child], doc, score)) break
      docs[i] = docs[child]
      scores[i] = scores[child]
      i = child
    }
    docs[i] = doc
    scores[i] = score
  }
}

const topK = new TopK()

/**
 * The factor of a snippet's score for matching `n` of a question's `terms` terms, `(n/terms)^e`,
 * by `n`. questionTerms() keeps at most MAX_QUESTION_TERMS terms, so a few tables serve every
 * query; a longer term list, from another caller, gets a table of its own, not kept.
 */
const coverageTables: Float64Array[] = []
const coverageTable = (terms: number) => Float64Array.from({ length: terms + 1 }, (_, n) => (n / terms) ** COVERAGE_EXPONENT)
function coverageFactors(terms: number): Float64Array {
  return terms <= MAX_QUESTION_TERMS ? (coverageTables[terms] ??= coverageTable(terms)) : coverageTable(terms)
}

/** Whether a hit ranks after another: a lower score, then the later document. */
const worse = (doc: number, score: number, otherDoc: number, otherScore: number) => score < otherScore || (score === otherScore && doc > otherDoc)

/** Charikar's SimHash over the distinct terms: similar term sets differ in few bits. */
function simhash(terms: readonly string[], out: Uint32Array, doc: number): void {
  const counts = new Int32Array(64)
  for (const term of new Set(terms)) {
    const [h1, h2] = fnv64(term)
    for (let bit = 0; bit < 32; bit++) {
      counts[bit] += (h1 >>> bit) & 1 ? 1 : -1
      counts[32 + bit] += (h2 >>> bit) & 1 ? 1 : -1
    }
  }
  let lo = 0
  let hi = 0
  for (let bit = 0; bit < 32; bit++) {
    if (counts[bit] > 0) lo |= 1 << bit
    if (counts[32 + bit] > 0) hi |= 1 << bit
  }
  out[doc * 2] = lo >>> 0
  out[doc * 2 + 1] = hi >>> 0
}

/** Two independent 32-bit FNV-1a hashes of a term. */
function fnv64(text: string): [number, number] {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13)
  }
  return [a >>> 0, b >>> 0]
}
