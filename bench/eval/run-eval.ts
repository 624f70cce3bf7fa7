/**
 * Retrieval quality: ingests the eval corpora through the product's own submit + worker path,
 * asks every question of questions.json through the retriever exactly as the API does, and
 * scores the returned snippets against graded relevant files.
 *
 * A snippet counts as relevant when its file has grade >= 1. Hit@k: a relevant snippet among
 * the first k. MRR: 1 / rank of the first relevant snippet (0 when none is returned).
 * nDCG@5: graded gain of the first 5 snippets, each file counted once, against the best order.
 */
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { LOCAL } from '../../src/access.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { resolveConfig } from '../../src/config.js'
import { CORPORA, buildCorpusRepo, ingestCorpora, libraryIdOf, projectRoot, redirectGitHub } from './corpora.js'

export interface EvalQuestion {
  library: string
  question: string
  /** Repo-relative file path to grade: 2 answers the question, 1 is useful. */
  relevant: Record<string, number>
}

export interface Metrics {
  questions: number
  hit1: number
  hit5: number
  mrr: number
  ndcg5: number
}

export interface QuestionResult {
  library: string
  question: string
  /** Files of the returned snippets, best first. */
  files: string[]
  /** 1-based rank of the first relevant snippet, or null. */
  firstRelevant: number | null
  ndcg5: number
}

export interface EvalReport {
  overall: Metrics
  libraries: Record<string, Metrics>
  results: QuestionResult[]
  tokens: number
}

export interface EvalOptions {
  /** Token budget of each answer, as a client would ask with `tokens=`. */
  tokens?: number
  /** Defaults to bench/eval/questions.json. */
  questionsFile?: string
}

/** What `npm run eval -- --record` writes and test/eval.test.ts holds the ranking to. */
export interface Baseline {
  recordedAt: string
  tokens: number
  overall: Metrics
  libraries: Record<string, Metrics>
}

export const baselinePath = () => path.join(projectRoot(), 'bench', 'eval-baseline.json')

export async function readBaseline(): Promise<Baseline> {
  return JSON.parse(await fs.readFile(baselinePath(), 'utf8')) as Baseline
}

const DEFAULT_TOKENS = 5000
const CUTOFF = 5

export async function loadQuestions(file = path.join(projectRoot(), 'bench', 'eval', 'questions.json')): Promise<EvalQuestion[]> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as EvalQuestion[]
}

/** The repo-relative path of a snippet source `https://github.com/<o>/<r>/blob/<commit>/<path>#anchor`. */
export function sourcePath(source: string): string {
  const match = /\/blob\/[^/]+\/([^#?]+)/.exec(source)
  if (!match) throw new Error(`snippet source is not a blob link: ${source}`)
  return match[1].split('/').map(decodeURIComponent).join('/')
}

function dcg(gains: number[]): number {
  return gains.reduce((sum, grade, i) => sum + (2 ** grade - 1) / Math.log2(i + 2), 0)
}

/** nDCG@k at file level: a file earns its gain once, at its first snippet, so repeats add nothing. */
export function ndcgAt(files: string[], relevant: Record<string, number>, k = CUTOFF): number {
  const credited = new Set<string>()
  const gains = files.slice(0, k).map((file) => {
    if (credited.has(file)) return 0
    credited.add(file)
    return relevant[file] ?? 0
  })
  const ideal = dcg(Object.values(relevant).sort((a, b) => b - a).slice(0, k))
  return ideal === 0 ? 0 : dcg(gains) / ideal
}

export function scoreQuestion(question: EvalQuestion, files: string[]): QuestionResult {
  const index = files.findIndex((file) => (question.relevant[file] ?? 0) >= 1)
  return {
    library: question.library,
    question: question.question,
    files,
    firstRelevant: index === -1 ? null : index + 1,
    ndcg5: ndcgAt(files, question.relevant),
  }
}

export function summarize(results: QuestionResult[]): Metrics {
  const n = results.length
  const mean = (value: (r: QuestionResult) => number) => (n === 0 ? 0 : results.reduce((s, r) => s + value(r), 0) / n)
  const within = (k: number) => (r: QuestionResult) => (r.firstRelevant !== null && r.firstRelevant <= k ? 1 : 0)
  return {
    questions: n,
    hit1: mean(within(1)),
    hit5: mean(within(CUTOFF)),
    mrr: mean((r) => (r.firstRelevant === null ? 0 : 1 / r.firstRelevant)),
    ndcg5: mean((r) => r.ndcg5),
  }
}

async function answerFiles(runtime: Runtime, question: EvalQuestion, tokens: number): Promise<string[]> {
  const answer = await runtime.retriever.getContext({ libraryId: libraryIdOf(question.library), query: question.question, tokens, caller: LOCAL })
  return answer.snippets.map((s) => sourcePath(s.source))
}

function checkQuestions(questions: EvalQuestion[]): void {
  const known = new Set(CORPORA.map((c) => c.name))
  const unknown = questions.find((q) => !known.has(q.library))
  if (unknown) throw new Error(`question "${unknown.question}" names unknown library "${unknown.library}"`)
}

export async function runEval(options: EvalOptions = {}): Promise<EvalReport> {
  const tokens = options.tokens ?? DEFAULT_TOKENS
  const questions = await loadQuestions(options.questionsFile)
  checkQuestions(questions)
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lectern-eval-'))
  const reposRoot = path.join(workDir, 'repos')
  const restoreEnv = redirectGitHub(reposRoot)
  let runtime: Runtime | undefined
  try {
    await Promise.all(CORPORA.map((corpus) => buildCorpusRepo(corpus, reposRoot)))
    runtime = await openRuntime({ config: resolveConfig({ dataDir: path.join(workDir, 'data') }).config })
    await ingestCorpora(runtime, CORPORA)
    const results: QuestionResult[] = []
    for (const question of questions) results.push(scoreQuestion(question, await answerFiles(runtime, question, tokens)))
    const libraries = Object.fromEntries(
      CORPORA.map((c) => [c.name, summarize(results.filter((r) => r.library === c.name))]),
    )
    return { overall: summarize(results), libraries, results, tokens }
  } finally {
    await runtime?.close()
    restoreEnv()
    await fs.rm(workDir, { recursive: true, force: true })
  }
}
