/**
 * Reciprocal rank fusion: each ranked list adds weight / (k + rank) to a document. It needs no
 * score calibration between BM25 and cosine distance, which live on unrelated scales.
 */
import { mostSimilar } from '../index/set-vectors.js'

export interface RankedList {
  pks: number[]
  weight: number
}

export const RRF_K = 60

export interface RankedPk {
  pk: number
  score: number
}

export function fuseRankings(lists: RankedList[], k = RRF_K): RankedPk[] {
  const scores = new Map<number, number>()
  for (const { pks, weight } of lists) {
    pks.forEach((pk, rank) => scores.set(pk, (scores.get(pk) ?? 0) + weight / (k + rank + 1)))
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([pk, score]) => ({ pk, score }))
}

/** Hash-embedded sets: weight of the cosine similarity added to the lexical score scaled to 1. */
export const HASH_VECTOR_WEIGHT = 0.8
/** Hash-embedded sets: how many of the lexical candidates most similar to the question get it. */
export const HASH_RESCORED = 10

/** A snippet ranked by its position in its loaded set (pk order, so ties go to the lower pk). */
export interface RankedDoc {
  doc: number
  score: number
}

/**
 * The fused ranking of a hash-embedded set. The hash embedder's vectors only capture lexical
 * overlap, so its similarity re-ranks the lexical candidates instead of bringing its own: each
 * candidate scores its lexical score scaled to 1, and the HASH_RESCORED most similar to the
 * question add HASH_VECTOR_WEIGHT x their cosine. On the development set this ranks as well as
 * adding the cosine of the vector index's 50 nearest neighbours, which it replaced, for a few
 * dozen dot products instead of a graph walk, and the same on every run (bench/RESULTS.md).
 * `cosines[i]` is the cosine of `candidates[i]`. The best first.
 */
export function rescoreByHashSimilarity(candidates: readonly RankedDoc[], cosines: ArrayLike<number>): RankedDoc[] {
  // A shorter array would re-rank the last candidates by `undefined`, silently.
  if (cosines.length !== candidates.length) throw new Error(`${cosines.length} cosines for ${candidates.length} candidates`)
  const top = candidates[0]?.score ?? 0
  const scored = candidates.map((hit, i) => ({ doc: hit.doc, score: top > 0 ? hit.score / top : 0, cosine: cosines[i] }))
  for (const hit of mostSimilar(scored, HASH_RESCORED)) hit.score += HASH_VECTOR_WEIGHT * hit.cosine
  return scored.sort((a, b) => b.score - a.score || a.doc - b.doc).map(({ doc, score }) => ({ doc, score }))
}
