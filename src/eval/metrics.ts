/**
 * Scoring an answer against a graded question. A returned snippet stands for the files it came
 * from (its page, the files its code was included from, the other pages showing it); it is
 * relevant when one of them is graded. Cut-offs follow the usual search metrics:
 * Hit@k (a relevant snippet among the first k), MRR@10 (1 / rank of the first relevant one
 * within 10), nDCG@5 (graded gain, each file credited once), Recall@5 (share of the graded
 * files seen in the first 5), codeHit@5 (code questions: the first 5 code snippets contain the
 * expected code).
 */
import type { EvalQuestion } from './questions.js'

export interface RankedSnippet {
  kind: 'code' | 'info'
  /** Repository-relative files the snippet stands for, its own page first. */
  files: string[]
  /** The code of a code snippet (every alternative joined). */
  code?: string
}

export interface QuestionScore {
  library: string
  question: string
  intent?: string
  holdout?: boolean
  /** 1-based rank of the first relevant snippet, or null. */
  firstRelevant: number | null
  ndcg5: number
  recall5: number
  /** null for questions without codeMustContain. */
  codeHit5: number | null
  ms: number
  /** The first snippets' files, for reading misses. */
  top: string[]
}

export interface Metrics {
  questions: number
  hit1: number
  hit5: number
  mrr10: number
  ndcg5: number
  recall5: number
  /** Over the questions that have codeMustContain. */
  codeHit5: number
  codeQuestions: number
  p50ms: number
  p95ms: number
}

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim()

function gain(files: string[], relevant: Record<string, number>, credited: Set<string>): number {
  let best = 0
  for (const file of files) {
    if (credited.has(file)) continue
    best = Math.max(best, relevant[file] ?? 0)
  }
  for (const file of files) if ((relevant[file] ?? 0) > 0) credited.add(file)
  return best
}

const dcg = (gains: number[]) => gains.reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0)

export function scoreAnswer(question: EvalQuestion, snippets: RankedSnippet[], ms: number): QuestionScore {
  const isRelevant = (s: RankedSnippet) => s.files.some((f) => (question.relevant[f] ?? 0) >= 1)
  const index = snippets.findIndex(isRelevant)
  const credited = new Set<string>()
  const gains = snippets.slice(0, 5).map((s) => gain(s.files, question.relevant, credited))
  const ideal = dcg(Object.values(question.relevant).sort((a, b) => b - a).slice(0, 5))
  const graded = Object.keys(question.relevant)
  const seen = new Set(snippets.slice(0, 5).flatMap((s) => s.files))
  let codeHit5: number | null = null
  if (question.codeMustContain) {
    const wanted = normalise(question.codeMustContain)
    codeHit5 = snippets.filter((s) => s.kind === 'code').slice(0, 5).some((s) => normalise(s.code ?? '').includes(wanted)) ? 1 : 0
  }
  return {
    library: question.library,
    question: question.question,
    ...(question.intent ? { intent: question.intent } : {}),
    ...(question.holdout !== undefined ? { holdout: question.holdout } : {}),
    firstRelevant: index === -1 ? null : index + 1,
    ndcg5: ideal === 0 ? 0 : dcg(gains) / ideal,
    recall5: graded.filter((f) => seen.has(f)).length / graded.length,
    codeHit5,
    ms,
    top: snippets.slice(0, 5).map((s) => s.files[0] ?? '?'),
  }
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

export function summarize(scores: QuestionScore[]): Metrics {
  const n = scores.length
  const mean = (value: (s: QuestionScore) => number, of = scores) => (of.length === 0 ? 0 : of.reduce((sum, s) => sum + value(s), 0) / of.length)
  const within = (k: number) => (s: QuestionScore) => (s.firstRelevant !== null && s.firstRelevant <= k ? 1 : 0)
  const code = scores.filter((s) => s.codeHit5 !== null)
  return {
    questions: n,
    hit1: mean(within(1)),
    hit5: mean(within(5)),
    mrr10: mean((s) => (s.firstRelevant !== null && s.firstRelevant <= 10 ? 1 / s.firstRelevant : 0)),
    ndcg5: mean((s) => s.ndcg5),
    recall5: mean((s) => s.recall5),
    codeHit5: mean((s) => s.codeHit5 ?? 0, code),
    codeQuestions: code.length,
    p50ms: percentile(scores.map((s) => s.ms), 50),
    p95ms: percentile(scores.map((s) => s.ms), 95),
  }
}

export interface EvalReport {
  overall: Metrics
  libraries: Record<string, Metrics>
  scores: QuestionScore[]
}

export function report(scores: QuestionScore[]): EvalReport {
  const libraries = [...new Set(scores.map((s) => s.library))]
  return { overall: summarize(scores), libraries: Object.fromEntries(libraries.map((l) => [l, summarize(scores.filter((s) => s.library === l))])), scores }
}

const fixed = (n: number) => n.toFixed(3)

/** The report as a Markdown table, one row per library and one overall. */
export function reportTable(result: EvalReport): string {
  const row = (name: string, m: Metrics) =>
    `| ${name} | ${m.questions} | ${fixed(m.hit1)} | ${fixed(m.hit5)} | ${fixed(m.mrr10)} | ${fixed(m.ndcg5)} | ${fixed(m.recall5)} | ${m.codeQuestions ? fixed(m.codeHit5) : '-'} | ${m.p50ms.toFixed(1)} | ${m.p95ms.toFixed(1)} |`
  return [
    '| library | questions | Hit@1 | Hit@5 | MRR@10 | nDCG@5 | Recall@5 | codeHit@5 | p50 ms | p95 ms |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...Object.entries(result.libraries).map(([name, m]) => row(name, m)),
    row('overall', result.overall),
  ].join('\n')
}
