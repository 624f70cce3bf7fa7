/**
 * `npm run eval`: retrieval quality. Prints per-library and overall figures (Hit@1, Hit@5, MRR@10,
 * nDCG@5, Recall@5, codeHit@5, latency) for the development set when it is prepared, else for
 * the CI set; every option:
 *   --set ci|dev     which questions (default dev when prepared)
 *   --signals        score BM25 alone, the vector index alone and their fusion, not only the default
 *   --holdout        also split the figures into tuning and holdout questions
 *   --misses         list the questions with no relevant snippet in the first five
 *   --record         (ci) write the figures to bench/eval-baseline.json, the floor test/eval.test.ts guards
 *   --embedding ollama|openai --embedding-model <name> [--embedding-host <url>]
 *                    ingest with a real embedder instead of the built-in hash one (the API key of
 *                    an OpenAI-compatible server from LECTERN_EVAL_EMBEDDING_KEY)
 */
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { report, reportTable, type EvalReport } from '../src/eval/metrics.js'
import type { Signals } from '../src/search/context.js'
import { baselinePath, embeddingFromArgs, runBench, type Baseline, type QuestionSet } from './eval/run-eval.js'
import { defaultReposRoot } from './eval/dev-corpora.js'

function misses(result: EvalReport): string {
  const missed = result.scores.filter((s) => s.firstRelevant === null || s.firstRelevant > 5)
  return missed.map((s) => `- [${s.library}] ${s.question}\n    got: ${s.top.join(', ')}`).join('\n')
}

async function main(args: string[]): Promise<void> {
  const flag = (name: string) => args.includes(`--${name}`)
  const setArg = args[args.indexOf('--set') + 1]
  const set: QuestionSet = args.includes('--set') ? (setArg as QuestionSet) : existsSync(path.join(defaultReposRoot(), 'vue', '.git')) ? 'dev' : 'ci'
  if (set !== 'ci' && set !== 'dev') throw new Error(`--set takes ci or dev, not ${setArg}`)
  const signals: Signals[] = flag('signals') ? ['lexical', 'vector', 'fused'] : ['fused']
  const started = Date.now()
  const result = await runBench({ set, signals, embedding: embeddingFromArgs(args) })
  console.log(`${set} set: ${result.questions.length} questions; ingest ${result.ingestSeconds.toFixed(1)} s; ${((Date.now() - started) / 1000).toFixed(1)} s in all\n`)
  for (const [name, scored] of result.reports) {
    console.log(`### ${name === 'fused' && !flag('signals') ? 'default ranking' : name}\n\n${reportTable(scored)}\n`)
    if (flag('holdout')) {
      console.log(`tuning questions:\n\n${reportTable(report(scored.scores.filter((s) => !s.holdout)))}\n`)
      console.log(`holdout questions:\n\n${reportTable(report(scored.scores.filter((s) => s.holdout)))}\n`)
    }
    if (flag('misses')) console.log(`misses:\n${misses(scored)}\n`)
  }
  if (flag('record')) {
    if (set !== 'ci') throw new Error('--record writes the CI floor: run it with --set ci')
    const scored = result.reports.get('fused')!
    const baseline: Baseline = { recordedAt: new Date().toISOString(), tokens: 5000, overall: scored.overall, libraries: scored.libraries }
    await fs.writeFile(baselinePath(), `${JSON.stringify(baseline, null, 2)}\n`)
    console.log(`recorded ${path.relative(process.cwd(), baselinePath())}`)
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err)
  process.exitCode = 1
})
