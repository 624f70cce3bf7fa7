/**
 * The vectors of a hash-embedded snippet set, as the engine keeps them beside its lexical index:
 * one signed byte a dimension (each vector scaled so its largest component is 127), in index
 * order. The hash embedder's similarity only re-ranks a question's lexical candidates
 * (context.ts), so a request computes a few dozen cosines here instead of walking a graph.
 */

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
   * The cosine similarity of a question's vector to the snippet at each index position. A
   * question's hash vector has few non-zero dimensions (its words and their 3-grams), so each
   * cosine only reads those.
   */
  similarityTo(query: Float32Array): (doc: number) => number {
    const { rows, dimensions, norms } = this
    let nonZero = 0
    for (const value of query) if (value !== 0) nonZero++
    const at = new Int32Array(nonZero)
    const weights = new Float64Array(nonZero)
    let queryNorm = 0
    for (let i = 0, n = 0; i < query.length; i++) {
      if (query[i] === 0) continue
      at[n] = i
      weights[n++] = query[i]
      queryNorm += query[i] * query[i]
    }
    queryNorm = Math.sqrt(queryNorm)
    return (doc) => {
      const row = doc * dimensions
      let dot = 0
      for (let i = 0; i < at.length; i++) dot += weights[i] * rows[row + at[i]]
      const product = queryNorm * norms[doc]
      return product > 0 ? dot / product : 0
    }
  }
}
