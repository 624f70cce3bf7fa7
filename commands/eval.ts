import { Args, Flags } from '@oclif/core'
import { LecternCommand } from '../cli/run.js'
import { LOCAL } from '../src/library/access.js'
import { reportTable, type EvalReport } from '../src/eval/metrics.js'
import { readQuestions, type EvalQuestion } from '../src/eval/questions.js'
import { DEFAULT_EVAL_TOKENS, httpAsk, runEval, type Ask } from '../src/eval/run.js'
import { MAX_TOKENS, MIN_TOKENS } from '../src/search/budget.js'
import { renderJson } from '../src/index/render.js'

export default class Eval extends LecternCommand {
  static override summary = 'Score retrieval on your own questions: Hit@1, Hit@5, MRR@10, nDCG@5, Recall@5, codeHit@5 and latency per library.'
  static override description =
    'Each question of the file is asked as a client asks it (GET /api/v2/context, JSON) of the server at --url, or of this data directory when no --url is given, and scored against the files graded relevant to it. The file is a JSON array of {"library": "/owner/repo", "question": "...", "relevant": {"docs/guide.md": 2, "docs/api.md": 1}, "codeMustContain": "app.mount("} (2: answers the question, 1: useful; codeMustContain optional). The README describes the format and the metrics.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> questions.json --url http://lectern.internal:3000 --key "$LECTERN_API_KEY"',
    '<%= config.bin %> <%= command.id %> questions.json --misses',
    '<%= config.bin %> <%= command.id %> questions.json --json > eval-report.json',
  ]
  static override enableJsonFlag = true
  static override args = { questions: Args.string({ description: 'The question file (JSON).', required: true }) }
  static override flags = {
    url: Flags.string({ summary: 'Base URL of the Lectern to score; the local data directory when omitted.' }),
    key: Flags.string({ summary: 'API key for --url (private libraries, higher rate limit).', env: 'LECTERN_API_KEY' }),
    tokens: Flags.integer({ summary: 'Token budget of each answer.', default: DEFAULT_EVAL_TOKENS, min: MIN_TOKENS, max: MAX_TOKENS }),
    misses: Flags.boolean({ summary: 'Also list the questions with no relevant snippet among the first five.' }),
  }

  async run(): Promise<EvalReport> {
    const { args, flags } = await this.parse(Eval)
    const questions = await readQuestions(args.questions)
    const report = flags.url
      ? await this.score(questions, httpAsk(flags.url, flags.key), flags.tokens)
      : await this.withRuntime(flags, 'read', (runtime) =>
          this.score(
            questions,
            async (libraryId, query, tokens) => {
              const answer = await runtime.retriever.getContext({ libraryId, query, tokens, caller: LOCAL })
              return renderJson(answer.snippets, answer.library.rules, answer.scores)
            },
            flags.tokens,
          ),
        )
    this.log(reportTable(report))
    if (flags.misses) {
      for (const missed of report.scores.filter((s) => s.firstRelevant === null || s.firstRelevant > 5)) {
        this.log(`\nmissed [${missed.library}] ${missed.question}\n  got: ${missed.top.join(', ') || '(nothing)'}`)
      }
    }
    return report
  }

  /** Asks every question with progress on stderr; started once the server or the data directory is there to ask. */
  private async score(questions: EvalQuestion[], ask: Ask, tokens: number): Promise<EvalReport> {
    const progress = this.progress(`asking ${questions.length} questions`).start()
    try {
      const report = await runEval(questions, ask, { tokens, onProgress: (done, total) => void (progress.text = `asked ${done} of ${total} questions`) })
      progress.succeed(`scored ${questions.length} questions`)
      return report
    } catch (err) {
      progress.fail('evaluation stopped')
      throw err
    }
  }
}
