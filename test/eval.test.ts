/**
 * Guards retrieval quality on what CI can reach: the npm-tarball corpora go through the real
 * submit + worker + retriever path, and the overall figures may not fall more than TOLERANCE
 * below the recorded baseline (`npm run eval -- --set ci --record` writes it after a deliberate
 * change). The development set (bench/eval/README.md) needs repositories CI cannot fetch.
 */
import { describe, expect, it } from 'vitest'
import { readBaseline, runBench } from '../bench/eval/run-eval.js'

const TOLERANCE = 0.05

describe('retrieval quality', () => {
  it('stays within tolerance of bench/eval-baseline.json', async () => {
    const [baseline, result] = await Promise.all([readBaseline(), runBench({ set: 'ci' })])
    const { overall } = result.reports.get('fused')!
    for (const metric of ['hit1', 'hit5', 'mrr10', 'ndcg5'] as const) {
      expect(overall[metric], `overall ${metric}`).toBeGreaterThanOrEqual(baseline.overall[metric] - TOLERANCE)
    }
  }, 120_000)
})
