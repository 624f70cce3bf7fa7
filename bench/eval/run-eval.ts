/**
 * Retrieval quality, measured the way clients see it: the corpora are ingested through the
 * product's own submit + worker path (git clone included), every question is asked of the
 * retriever and rendered as the JSON answer, and src/eval scores it against its graded files.
 *
 * Two question sets: `ci` (fastify, pino and undici docs from npm tarballs; the regression
 * floor test/eval.test.ts guards) and `dev` (bench/eval/dev-questions.json over the nine
 * prepared repositories of bench/eval/dev-corpora.json; `npm run eval:prepare` builds them).
 */
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { LOCAL } from '../../src/library/access.js'
import { resolveConfig } from '../../src/config.js'
import type { EvalReport } from '../../src/eval/metrics.js'
import { readQuestions, type EvalQuestion } from '../../src/eval/questions.js'
import { runEval, DEFAULT_EVAL_TOKENS } from '../../src/eval/run.js'
import { saveEmbedding } from '../../src/embed/pool.js'
import type { EmbedderSettings } from '../../src/embed/types.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { Retriever, type Signals } from '../../src/search/context.js'
import { renderJson } from '../../src/index/render.js'
import { CORPORA, buildCorpusRepo, ingestCorpora, libraryIdOf, projectRoot, redirectGitHub } from './corpora.js'
import { defaultReposRoot, loadManifest } from './dev-corpora.js'

export type QuestionSet = 'ci' | 'dev'

export interface BenchOptions {
  set: QuestionSet
  /** Rankings to score; default the product's (`fused`). */
  signals?: Signals[]
  tokens?: number
  /** Where the dev repositories were prepared (default bench/.work/dev-repos). */
  reposRoot?: string
  /** The embedder the corpora are ingested with (default the built-in hash embedder). */
  embedding?: EmbedderSettings
}

export interface BenchResult {
  set: QuestionSet
  questions: EvalQuestion[]
  reports: Map<Signals, EvalReport>
  ingestSeconds: number
}

/** What `npm run eval -- --record` writes and test/eval.test.ts holds the `ci` figures to. */
export interface Baseline {
  recordedAt: string
  tokens: number
  overall: EvalReport['overall']
  libraries: EvalReport['libraries']
}

export const baselinePath = () => path.join(projectRoot(), 'bench', 'eval-baseline.json')

export async function readBaseline(): Promise<Baseline> {
  return JSON.parse(await fs.readFile(baselinePath(), 'utf8')) as Baseline
}

/**
 * `--embedding ollama|openai --embedding-model <name> [--embedding-host <url>]`: the embedder to
 * ingest with instead of the built-in hash one, so a host that runs an embedding server measures
 * the fusion a real embedder gets. An OpenAI-compatible server's key comes from the environment
 * (LECTERN_EVAL_EMBEDDING_KEY), never from the command line.
 */
export function embeddingFromArgs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): EmbedderSettings | undefined {
  const value = (name: string) => {
    const at = args.indexOf(`--${name}`)
    if (at === -1) return undefined
    const given = args[at + 1]
    if (given === undefined || given.startsWith('--')) throw new Error(`--${name} needs a value`)
    return given
  }
  const provider = value('embedding')
  if (provider === undefined) {
    const stray = ['embedding-model', 'embedding-host'].find((name) => args.includes(`--${name}`))
    if (stray) throw new Error(`--${stray} goes with --embedding ollama|openai`)
    return undefined
  }
  if (provider !== 'ollama' && provider !== 'openai') throw new Error(`--embedding takes ollama or openai, not ${provider}`)
  const apiKey = env.LECTERN_EVAL_EMBEDDING_KEY
  return { provider, model: value('embedding-model'), host: value('embedding-host'), ...(apiKey ? { apiKey } : {}) }
}

const questionsFile = (set: QuestionSet) => path.join(projectRoot(), 'bench', 'eval', set === 'ci' ? 'questions.json' : 'dev-questions.json')

/** The repositories to clone, under one folder git's insteadOf points at: built (ci) or linked (dev). */
async function stageRepos(set: QuestionSet, reposRoot: string, prepared: string): Promise<string[]> {
  await fs.mkdir(reposRoot, { recursive: true })
  if (set === 'ci') {
    await Promise.all(CORPORA.map((corpus) => buildCorpusRepo(corpus, reposRoot)))
    return CORPORA.map((c) => c.name)
  }
  const names = (await loadManifest()).corpora.map((c) => c.name)
  const missing = names.filter((name) => !existsSync(path.join(prepared, name, '.git')))
  if (missing.length > 0) throw new Error(`dev corpora not prepared in ${prepared}: ${missing.join(', ')}. Run \`npm run eval:prepare\` first (see bench/eval/README.md).`)
  await Promise.all(names.map((name) => fs.symlink(path.join(prepared, name), path.join(reposRoot, name))))
  return names
}

export async function runBench(options: BenchOptions): Promise<BenchResult> {
  const tokens = options.tokens ?? DEFAULT_EVAL_TOKENS
  const questions = await readQuestions(questionsFile(options.set))
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lectern-eval-'))
  const reposRoot = path.join(workDir, 'repos')
  const restoreEnv = redirectGitHub(reposRoot)
  let runtime: Runtime | undefined
  try {
    const names = await stageRepos(options.set, reposRoot, options.reposRoot ?? defaultReposRoot())
    const unknown = questions.find((q) => !names.includes(q.library))
    if (unknown) throw new Error(`question "${unknown.question}" names unknown library "${unknown.library}"`)
    runtime = await openRuntime({ config: resolveConfig({ dataDir: path.join(workDir, 'data') }).config })
    if (options.embedding) await saveEmbedding(runtime.store, options.embedding)
    const started = Date.now()
    await ingestCorpora(runtime, names)
    const ingestSeconds = (Date.now() - started) / 1000
    const reports = new Map<Signals, EvalReport>()
    for (const signals of options.signals ?? ['fused']) {
      const retriever = new Retriever(runtime.store, runtime.embedders, undefined, signals)
      const ask = async (libraryId: string, query: string, budget: number) => {
        const answer = await retriever.getContext({ libraryId, query, tokens: budget, caller: LOCAL })
        return renderJson(answer.snippets, [], answer.scores)
      }
      reports.set(signals, await runEval(questions, ask, { tokens, libraryId: libraryIdOf }))
    }
    return { set: options.set, questions, reports, ingestSeconds }
  } finally {
    await runtime?.close()
    restoreEnv()
    await fs.rm(workDir, { recursive: true, force: true })
  }
}
