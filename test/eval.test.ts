/**
 * Guards retrieval quality: the eval corpora go through the real submit + worker + retriever
 * path, and the overall figures may not fall more than TOLERANCE below the recorded baseline
 * (`npm run eval -- --record` writes it after a deliberate change).
 */
import { describe, expect, it } from 'vitest'
import { readBaseline, runEval } from '../bench/eval/run-eval.js'

const TOLERANCE = 0.05

describe('retrieval quality', () => {
  it('stays within tolerance of bench/eval-baseline.json', async () => {
    const [baseline, report] = await Promise.all([readBaseline(), runEval()])
    for (const metric of ['hit1', 'hit5', 'mrr'] as const) {
      expect(report.overall[metric], `overall ${metric}`).toBeGreaterThanOrEqual(baseline.overall[metric] - TOLERANCE)
    }
  }, 60_000)
})
