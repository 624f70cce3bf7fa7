/**
 * The vectors of a hash-embedded snippet set, as the engine keeps them beside its lexical index:
 * one signed byte a dimension (each vector scaled so its largest component is 127), in index
 * order. They are the set's only vectors: the hash embedder's similarity re-ranks a question's
 * lexical candidates (context.ts), a few dozen cosines, and a question none of whose words the
 * set has is answered by the cosine of every snippet (`nearest`), exact where a graph index
 * would approximate, and without building one at ingest.
 */
import { mostSimilar } from './fusion.js'

/** Writes `vector` quantized into `into` at row `row`. */
export function quantizeInto(vector: Float32Array, into: Int8Array, row: number): void {
  let max = 0
  for (const value of vector) max = Math.max(max, Math.abs(value))
  const at = row * vector.length
  const scale = max > 0 ? 127 / max : 0
  for (let i = 0; i < vector.length; i++) into[at + i] = Math.round(vector[i] * scale)
}

export class SetVectors {
  /** Each row's Euclidean norm, for cosines. */
  private readonly norms: Float32Array

  constructor(
    private readonly rows: Int8Array,
    readonly dimensions: number,
  ) {
    const count = dimensions > 0 ? rows.length / dimensions : 0
    this.norms = new Float32Array(count)
    for (let doc = 0; doc < count; doc++) {
      let sum = 0
      for (let i = doc * dimensions, end = i + dimensions; i < end; i++) sum += rows[i] * rows[i]
      this.norms[doc] = Math.sqrt(sum)
    }
  }

  /** What it allocates beside the rows, which are a view of the caller's buffer. */
  get ownBytes(): number {
    return this.norms.byteLength
  }

  /**
   * The cosine similarity of a question's vector to the snippets at the given index positions,
   * in their order. A question's hash vector has few non-zero dimensions (its words and their
   * 3-grams), so each cosine only reads those. The loop runs over dimensions, then snippets:
   * the rows are scattered over the set, and reading the same dimension of every row in a row
   * lets the processor fetch their cache lines at once instead of one row after another (a
   * third less time on the 1M store). Each dot product still adds its terms in dimension order,
   * so the cosines are exactly those of one row at a time.
   */
  similarities(query: Float32Array, docs: ArrayLike<number>): Float64Array {
    const { rows, dimensions, norms } = this
    const { at, weights, nonZero, norm } = sparse(query)
    const count = docs.length
    const starts = new Int32Array(count)
    for (let c = 0; c < count; c++) starts[c] = docs[c] * dimensions
    const dots = new Float64Array(count)
    for (let n = 0; n < nonZero; n++) {
      const dimension = at[n]
      const weight = weights[n]
      for (let c = 0; c < count; c++) dots[c] += weight * rows[starts[c] + dimension]
    }
    for (let c = 0; c < count; c++) {
      const product = norm * norms[docs[c]]
      dots[c] = product > 0 ? dots[c] / product : 0
    }
    return dots
  }

  /**
   * The k snippets most similar to the question (ties: the lower position), of those with a
   * positive cosine: one that shares no hashed word or part of a word with the question is no
   * answer to it. Every row is read, one after another, which the processor streams (about a
   * millisecond for 10,000 snippets); each dot product adds its terms in dimension order, so the
   * cosines are exactly those of `similarities`.
   */
  nearest(query: Float32Array, k: number): Array<{ doc: number; cosine: number }> {
    const { rows, dimensions, norms } = this
    const { at, weights, nonZero, norm } = sparse(query)
    function* similar() {
      for (let doc = 0, start = 0; doc < norms.length; doc++, start += dimensions) {
        let dot = 0
        for (let n = 0; n < nonZero; n++) dot += weights[n] * rows[start + at[n]]
        const product = norm * norms[doc]
        const cosine = product > 0 ? dot / product : 0
        if (cosine > 0) yield { doc, cosine }
      }
    }
    return mostSimilar(similar(), k)
  }
}

/** A question's non-zero dimensions, their values and its norm. Indexed loops, not for-of: iterating a typed array cost as much as all the dot products. */
function sparse(query: Float32Array): { at: Int32Array; weights: Float64Array; nonZero: number; norm: number } {
  const at = new Int32Array(query.length)
  const weights = new Float64Array(query.length)
  let nonZero = 0
  let norm = 0
  for (let i = 0; i < query.length; i++) {
    const value = query[i]
    if (value === 0) continue
    at[nonZero] = i
    weights[nonZero++] = value
    norm += value * value
  }
  return { at, weights, nonZero, norm: Math.sqrt(norm) }
}
