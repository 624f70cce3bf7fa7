/**
 * Reciprocal rank fusion: each ranked list adds weight / (k + rank) to a document. It needs no
 * score calibration between BM25 and cosine distance, which live on unrelated scales.
 */
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
