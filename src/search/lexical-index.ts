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
import { indexTerms } from '../text/terms.js'

/** Field weights of BM25F: the title says most about a snippet, the body least per word. */
export const FIELD_WEIGHTS = { title: 4, context: 2, body: 1 } as const
const K1 = 1.2
const B = 0.75
const COVERAGE_EXPONENT = 0.5

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

interface Postings {
  docs: Int32Array
  impacts: Float32Array
}

export class LexicalIndex {
  private constructor(
    private readonly postings: Map<string, Postings>,
    readonly size: number,
    /** 64-bit SimHash of each body's terms (two words a snippet), for near-duplicate checks. */
    private readonly simhashes: Uint32Array,
  ) {}

  static build(rows: readonly IndexedText[]): LexicalIndex {
    const fields = ['title', 'context', 'body'] as const
    const n = rows.length
    const terms = rows.map((row) => fields.map((f) => indexTerms(row[f])))
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
    const postings = new Map<string, Postings>()
    for (const [term, list] of weighted) {
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5))
      postings.set(term, {
        docs: Int32Array.from(list, ([doc]) => doc),
        impacts: Float32Array.from(list, ([, tf]) => (idf * tf * (K1 + 1)) / (tf + K1)),
      })
    }
    return new LexicalIndex(postings, n, simhashes)
  }

  /** The best `limit` snippets for the question's terms, best first; only snippets matching a term. */
  search(questionTerms: readonly string[], limit: number): LexicalHit[] {
    if (questionTerms.length === 0 || this.size === 0) return []
    const scores = new Float64Array(this.size)
    const matched = new Uint8Array(this.size)
    const touched: number[] = []
    for (const term of questionTerms) {
      const list = this.postings.get(term)
      if (!list) continue
      for (let i = 0; i < list.docs.length; i++) {
        const doc = list.docs[i]
        if (matched[doc] === 0) touched.push(doc)
        scores[doc] += list.impacts[i]
        matched[doc]++
      }
    }
    const hits = touched.map((doc) => ({ doc, score: scores[doc] * (matched[doc] / questionTerms.length) ** COVERAGE_EXPONENT }))
    hits.sort((a, b) => b.score - a.score || a.doc - b.doc)
    return hits.slice(0, limit)
  }

  /** Whether two snippets' bodies are near-duplicates (SimHash within 3 bits of 64). */
  nearDuplicates(a: number, b: number): boolean {
    const bits = popcount(this.simhashes[a * 2] ^ this.simhashes[b * 2]) + popcount(this.simhashes[a * 2 + 1] ^ this.simhashes[b * 2 + 1])
    return bits <= 3
  }
}

function popcount(x: number): number {
  let v = x >>> 0
  v -= (v >>> 1) & 0x55555555
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff
}

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
