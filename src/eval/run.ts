/**
 * Scores a set of questions against a Lectern that answers them: each question is asked as a
 * client asks (`/api/v2/context`, JSON), timed, and scored against its graded files.
 */
import { ERROR_CODES, LecternError, type ErrorCode } from '../errors.js'
import type { ContextResponse } from '../index/render.js'
import { rankedSnippets } from './answers.js'
import { report, scoreAnswer, type EvalReport, type QuestionScore } from './metrics.js'
import type { EvalQuestion } from './questions.js'

/** Asks one question; resolves to the JSON answer (or throws the error the service answered). */
export type Ask = (libraryId: string, question: string, tokens: number) => Promise<ContextResponse>

export interface EvalOptions {
  tokens?: number
  /** The library ID a question's `library` names (default: the value itself). */
  libraryId?: (library: string) => string
  onProgress?: (done: number, total: number) => void
}

export const DEFAULT_EVAL_TOKENS = 5000

export async function runEval(questions: EvalQuestion[], ask: Ask, options: EvalOptions = {}): Promise<EvalReport> {
  const tokens = options.tokens ?? DEFAULT_EVAL_TOKENS
  const scores: QuestionScore[] = []
  for (const [i, question] of questions.entries()) {
    const started = process.hrtime.bigint()
    let answer: ContextResponse
    try {
      answer = await ask(options.libraryId?.(question.library) ?? question.library, question.question, tokens)
    } catch (err) {
      // No snippet for a question scores zero; any other refusal (unknown library, bad key) ends the run.
      if (!(err instanceof LecternError && err.code === 'no_snippets_found')) throw err
      answer = { codeSnippets: [], infoSnippets: [] }
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    scores.push(scoreAnswer(question, rankedSnippets(answer), ms))
    options.onProgress?.(i + 1, questions.length)
  }
  return report(scores)
}

/** Asks a Lectern server over HTTP, as any client does. */
export function httpAsk(baseUrl: string, key?: string): Ask {
  const base = baseUrl.replace(/\/+$/, '')
  return async (libraryId, question, tokens) => {
    const url = new URL(`${base}/api/v2/context`)
    url.search = new URLSearchParams({ libraryId, query: question, type: 'json', tokens: String(tokens) }).toString()
    let response: Response
    try {
      response = await fetch(url, { headers: { 'x-context7-source': 'lectern-eval', ...(key ? { authorization: `Bearer ${key}` } : {}) } })
    } catch (err) {
      throw new LecternError('source_unreachable', `Cannot reach ${base}: ${(err as Error).message}`)
    }
    const body = (await response.json().catch(() => undefined)) as (ContextResponse & { error?: string; message?: string }) | undefined
    if (response.status === 200 && body) return body
    const code = body?.error !== undefined && Object.hasOwn(ERROR_CODES, body.error) ? (body.error as ErrorCode) : 'internal_error'
    throw new LecternError(code, `${libraryId}: ${body?.message ?? `the server answered ${response.status}`}`)
  }
}
