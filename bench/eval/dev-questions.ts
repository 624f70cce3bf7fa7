/**
 * The development questions of issue 10 (bench/eval/dev-questions.json): the format, and the
 * holdout rule that splits them before anyone tunes on them.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { projectRoot } from './corpora.js'

export const INTENTS = ['api', 'howto', 'concept', 'troubleshooting'] as const

const DevQuestionSchema = z
  .object({
    library: z.string().min(1),
    question: z.string().min(10),
    intent: z.enum(INTENTS),
    /** Repo-relative file -> 2 (answers the question) or 1 (useful). */
    relevant: z
      .record(z.string().min(1), z.union([z.literal(1), z.literal(2)]))
      .refine((r) => Object.values(r).includes(2), 'needs at least one file graded 2'),
    /** For code questions: a string the code that answers it contains, as the docs write it. */
    codeMustContain: z.string().min(2).optional(),
    /** Kept out of tuning: see HOLDOUT_SEED. */
    holdout: z.boolean(),
  })
  .strict()

export type DevQuestion = z.infer<typeof DevQuestionSchema>

export const devQuestionsPath = () => path.join(projectRoot(), 'bench', 'eval', 'dev-questions.json')

export async function loadDevQuestions(file = devQuestionsPath()): Promise<DevQuestion[]> {
  const raw: unknown = JSON.parse(await fs.readFile(file, 'utf8'))
  const parsed = z.array(z.unknown()).parse(raw)
  return parsed.map((item, i) => {
    const result = DevQuestionSchema.safeParse(item)
    if (!result.success) {
      const where = typeof item === 'object' && item !== null && 'question' in item ? `"${String(item.question)}"` : `#${i + 1}`
      throw new Error(`${file}: question ${where}: ${result.error.issues.map((e) => `${e.path.join('.') || '(question)'}: ${e.message}`).join('; ')}`)
    }
    return result.data
  })
}

/**
 * The holdout draw: within each library, the questions ordered by SHA-256 of
 * `seed, library, question`, and the first third (rounded) held out. Fixed seed, no state: the
 * same questions always give the same split, and no one picks which questions are held out.
 */
export const HOLDOUT_SEED = 'lectern-issue-10-holdout-v1'

const drawKey = (q: Pick<DevQuestion, 'library' | 'question'>) =>
  createHash('sha256').update(`${HOLDOUT_SEED}\n${q.library}\n${q.question}`).digest('hex')

/** A question's identity: its library and its text. */
export const questionId = (q: Pick<DevQuestion, 'library' | 'question'>) => `${q.library}\n${q.question}`

/** The ids (questionId) of the questions that the rule holds out. */
export function holdoutDraw(questions: Pick<DevQuestion, 'library' | 'question'>[]): Set<string> {
  const byLibrary = new Map<string, Pick<DevQuestion, 'library' | 'question'>[]>()
  for (const q of questions) byLibrary.set(q.library, [...(byLibrary.get(q.library) ?? []), q])
  const held = new Set<string>()
  for (const group of byLibrary.values()) {
    const ordered = group.map((q) => ({ id: questionId(q), key: drawKey(q) })).sort((a, b) => a.key.localeCompare(b.key))
    for (const { id } of ordered.slice(0, Math.round(group.length / 3))) held.add(id)
  }
  return held
}

function oneLine(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  return `{ ${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}: ${oneLine(v)}`)
    .join(', ')} }`
}

/** One question a line, keys in a fixed order, so diffs show what changed. */
export function formatDevQuestions(questions: DevQuestion[]): string {
  const ordered = questions.map(({ library, question, intent, relevant, codeMustContain, holdout }) => ({
    library,
    question,
    intent,
    relevant,
    ...(codeMustContain === undefined ? {} : { codeMustContain }),
    holdout,
  }))
  return `[\n${ordered.map((q) => `  ${oneLine(q)}`).join(',\n')}\n]\n`
}
