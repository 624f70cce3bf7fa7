/**
 * The vectors of a hash-embedded snippet set, as the engine keeps them beside its lexical index:
 * one signed byte a dimension (each vector scaled so its largest component is 127), in index
 * order. They are the set's only vectors: the hash embedder's similarity re-ranks a question's
 * lexical candidates (context.ts), a few dozen cosines, and a question none of whose words the
 * set has is answered by the cosine of every snippet (`nearest`), exact where a graph index
 * would approximate, and without building one at ingest.
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
   * The cosine similarity of a question's vector to the snippets at the given index positions,
   * in their order. A question's hash vector has few non-zero dimensions (its words and their
   * 3-grams), so each cosine only reads those. Four rows are read in one pass over the
   * question's dimensions: each row is a separate run of memory, and reading four at once lets
   * the processor fetch their cache lines together while the question's dimensions are loaded
   * once for the four (on rows the size of the 1M store's, half the time of a dimension at a
   * time across all candidates, and two thirds of one row at a time: bench/RESULTS.md).
   * Each dot product still adds its terms in dimension order, so the cosines are exactly those
   * of one row at a time.
   */
  similarities(query: Float32Array, docs: ArrayLike<number>): Float64Array {
    const { rows, dimensions, norms } = this
    const { at, weights, nonZero, norm } = question.of(query)
    const count = docs.length
    const cosines = new Float64Array(count)
    let c = 0
    for (; c + 4 <= count; c += 4) {
      const row0 = docs[c] * dimensions
      const row1 = docs[c + 1] * dimensions
      const row2 = docs[c + 2] * dimensions
      const row3 = docs[c + 3] * dimensions
      let dot0 = 0
      let dot1 = 0
      let dot2 = 0
      let dot3 = 0
      for (let n = 0; n < nonZero; n++) {
        const dimension = at[n]
        const weight = weights[n]
        dot0 += weight * rows[row0 + dimension]
        dot1 += weight * rows[row1 + dimension]
        dot2 += weight * rows[row2 + dimension]
        dot3 += weight * rows[row3 + dimension]
      }
      cosines[c] = cosine(dot0, norm, norms[docs[c]])
      cosines[c + 1] = cosine(dot1, norm, norms[docs[c + 1]])
      cosines[c + 2] = cosine(dot2, norm, norms[docs[c + 2]])
      cosines[c + 3] = cosine(dot3, norm, norms[docs[c + 3]])
    }
    for (; c < count; c++) cosines[c] = cosine(question.dot(rows, docs[c] * dimensions), norm, norms[docs[c]])
    return cosines
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
    const { norm } = question.of(query)
    // Reads the module's question: mostSimilar must read it to the end before any other call.
    function* similar() {
      for (let doc = 0, start = 0; doc < norms.length; doc++, start += dimensions) {
        const similarity = cosine(question.dot(rows, start), norm, norms[doc])
        if (similarity > 0) yield { doc, cosine: similarity }
      }
    }
    return mostSimilar(similar(), k)
  }
}

const cosine = (dot: number, norm: number, rowNorm: number): number => {
  const product = norm * rowNorm
  return product > 0 ? dot / product : 0
}

/**
 * A question's non-zero dimensions, their values and its norm. One is kept for the module and
 * refilled by each call: two typed arrays allocated a request cost as much as all its dot
 * products, and no call reads it after it returns (`nearest`'s generator is read to its end
 * before `nearest` returns). Indexed loops, not for-of: iterating a typed array cost as much as
 * the dot products too.
 */
class SparseQuestion {
  at = new Int32Array(0)
  weights = new Float64Array(0)
  nonZero = 0
  norm = 0

  of(query: Float32Array): this {
    if (this.at.length < query.length) {
      this.at = new Int32Array(query.length)
      this.weights = new Float64Array(query.length)
    }
    const { at, weights } = this
    let nonZero = 0
    let norm = 0
    for (let i = 0; i < query.length; i++) {
      const value = query[i]
      if (value === 0) continue
      at[nonZero] = i
      weights[nonZero++] = value
      norm += value * value
    }
    this.nonZero = nonZero
    this.norm = Math.sqrt(norm)
    return this
  }

  /** Its dot product with the row starting at `start`, its terms added in dimension order. */
  dot(rows: Int8Array, start: number): number {
    const { at, weights, nonZero } = this
    let dot = 0
    for (let n = 0; n < nonZero; n++) dot += weights[n] * rows[start + at[n]]
    return dot
  }
}

const question = new SparseQuestion()

/**
 * The k items of highest cosine (ties: the lower doc), as sorting all of them would pick, by
 * insertion into a sorted run of k: a request re-scores about fifty candidates for ten, and a
 * question without a lexical match looks at every snippet of its set (SetVectors.nearest).
 */
export function mostSimilar<T extends { doc: number; cosine: number }>(items: Iterable<T>, k: number): T[] {
  const top: T[] = []
  if (k <= 0) return top
  const above = (a: T, b: T) => a.cosine > b.cosine || (a.cosine === b.cosine && a.doc < b.doc)
  for (const item of items) {
    if (top.length === k && !above(item, top[k - 1])) continue
    let at = Math.min(top.length, k - 1)
    if (top.length < k) top.push(item)
    while (at > 0 && above(item, top[at - 1])) {
      top[at] = top[at - 1]
      at--
    }
    top[at] = item
  }
  return top
}
