/**
 * The question file of `lectern eval` and `npm run eval`: questions as users ask them, each with
 * the files that answer it. Documented in the README; bench/eval/README.md has the grading rules.
 */
import fs from 'node:fs/promises'
import { z } from 'zod'
import { LecternError } from '../errors.js'

export const INTENTS = ['api', 'howto', 'concept', 'troubleshooting'] as const

export const EvalQuestionSchema = z
  .object({
    /** The library asked about: a library ID (`/owner/repo`), or a name the runner maps to one. */
    library: z.string().min(1),
    question: z.string().min(3).max(500),
    intent: z.enum(INTENTS).optional(),
    /** Repository-relative file -> 2 (answers the question) or 1 (useful). */
    relevant: z
      .record(z.string().min(1), z.union([z.literal(1), z.literal(2)]))
      .refine((r) => Object.values(r).includes(2), 'needs at least one file graded 2'),
    /** For code questions: a string the code that answers it contains. */
    codeMustContain: z.string().min(2).optional(),
    /** Kept out of tuning. */
    holdout: z.boolean().optional(),
  })
  .strict()

export type EvalQuestion = z.infer<typeof EvalQuestionSchema>

/** Reads and checks a question file; every problem names the question it is in. */
export async function readQuestions(file: string): Promise<EvalQuestion[]> {
  let raw: unknown
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8'))
  } catch (err) {
    throw new LecternError('validation_error', `Cannot read ${file} as JSON: ${(err as Error).message}`)
  }
  if (!Array.isArray(raw) || raw.length === 0) throw new LecternError('validation_error', `${file} must hold a non-empty JSON array of questions.`)
  return raw.map((item, i) => {
    const parsed = EvalQuestionSchema.safeParse(item)
    if (parsed.success) return parsed.data
    const where = typeof item === 'object' && item !== null && 'question' in item ? `"${String((item as { question: unknown }).question)}"` : `#${i + 1}`
    throw new LecternError('validation_error', `${file}: question ${where}: ${parsed.error.issues.map((e) => `${e.path.join('.') || '(question)'}: ${e.message}`).join('; ')}`)
  })
}
