/**
 * `npm run eval`: retrieval quality over the eval corpora. Prints per-library and overall
 * figures; `--record` also writes them to bench/eval-baseline.json, the floor test/eval.test.ts
 * guards. `--misses` lists the questions with no relevant snippet in the first five.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { baselinePath, runEval, type Baseline, type EvalReport, type Metrics } from './eval/run-eval.js'

const fixed = (n: number) => n.toFixed(3)

function row(name: string, m: Metrics): string {
  return `| ${name.padEnd(8)} | ${String(m.questions).padStart(9)} | ${fixed(m.hit1)} | ${fixed(m.hit5)} | ${fixed(m.mrr)} | ${fixed(m.ndcg5)} |`
}

function table(report: EvalReport): string {
  return [
    '| library  | questions | Hit@1 | Hit@5 |   MRR | nDCG@5 |',
    '|----------|-----------|-------|-------|-------|--------|',
    ...Object.entries(report.libraries).map(([name, m]) => row(name, m)),
    row('overall', report.overall),
  ].join('\n')
}

function misses(report: EvalReport): string {
  const missed = report.results.filter((r) => r.firstRelevant === null || r.firstRelevant > 5)
  return missed.map((r) => `- [${r.library}] ${r.question}\n    got: ${r.files.slice(0, 5).join(', ')}`).join('\n')
}

async function main(args: string[]): Promise<void> {
  const started = Date.now()
  const report = await runEval()
  console.log(table(report))
  const { hit1, hit5, mrr } = report.overall
  console.log(`\noverall Hit@1 ${fixed(hit1)}  Hit@5 ${fixed(hit5)}  MRR ${fixed(mrr)}  (${report.overall.questions} questions, ${report.tokens} tokens, ${((Date.now() - started) / 1000).toFixed(1)} s)`)
  if (args.includes('--misses')) console.log(`\nmisses:\n${misses(report)}`)
  if (args.includes('--record')) {
    const baseline: Baseline = { recordedAt: new Date().toISOString(), tokens: report.tokens, overall: report.overall, libraries: report.libraries }
    await fs.writeFile(baselinePath(), `${JSON.stringify(baseline, null, 2)}\n`)
    console.log(`\nrecorded ${path.relative(process.cwd(), baselinePath())}`)
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
