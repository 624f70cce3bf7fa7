/**
 * `npm run eval:holdout`: sets every question's `holdout` flag to what the seeded draw of
 * dev-questions.ts gives, and rewrites bench/eval/dev-questions.json in its one-line-a-question
 * form. Run it after adding questions; the checker refuses flags that differ from the draw.
 */
import fs from 'node:fs/promises'
import { devQuestionsPath, formatDevQuestions, holdoutDraw, loadDevQuestions, questionId } from './dev-questions.js'

async function main(): Promise<void> {
  const questions = await loadDevQuestions()
  const held = holdoutDraw(questions)
  const updated = questions.map((q) => ({ ...q, holdout: held.has(questionId(q)) }))
  const changed = updated.filter((q, i) => q.holdout !== questions[i].holdout).length
  await fs.writeFile(devQuestionsPath(), formatDevQuestions(updated))
  console.log(`${held.size} of ${questions.length} questions held out; ${changed} flags changed`)
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err)
  process.exitCode = 1
})
