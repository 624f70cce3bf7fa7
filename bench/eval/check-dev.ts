/**
 * `npm run eval:check -- [--repos <dir>]`: checks bench/eval/dev-questions.json against the
 * repositories `npm run eval:prepare` built. Every graded file must exist at the pinned commit,
 * every `codeMustContain` must occur in the code (not the prose) of a graded file (a file a graded
 * page includes counts only when it is graded itself), every how-to question must have one, and
 * the holdout flags must be the ones the seeded draw gives.
 * Prints what is wrong, one line each, and exits 1 if anything is.
 */
import fs from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { execa } from 'execa'
import { defaultReposRoot, loadManifest, type DevCorpus } from './dev-corpora.js'
import { codeText } from './dev-code-text.js'
import { directIncludes } from './dev-includes.js'
import { INTENTS, holdoutDraw, loadDevQuestions, questionId, type DevQuestion } from './dev-questions.js'

/** Issue 10's floor for the development set. */
const MIN_QUESTIONS = 150
const MIN_LIBRARIES = 8

/** Reads repository files once; a path that escapes the repository or is not a file reads as null. */
class RepoFiles {
  private readonly cache = new Map<string, string | null>()
  constructor(readonly repoDir: string) {}

  async text(file: string): Promise<string | null> {
    if (!this.cache.has(file)) {
      const full = path.resolve(this.repoDir, file)
      const inside = full.startsWith(`${this.repoDir}${path.sep}`)
      const stat = inside ? await fs.stat(full).catch(() => null) : null
      this.cache.set(file, stat?.isFile() ? await fs.readFile(full, 'utf8') : null)
    }
    return this.cache.get(file) ?? null
  }
}

async function checkPrepared(corpus: DevCorpus, repoDir: string): Promise<string | null> {
  const hint = `run npm run eval:prepare -- ${corpus.name}`
  if (!existsSync(repoDir)) return `${corpus.name}: no prepared repository at ${repoDir}; ${hint}`
  const { stdout, exitCode } = await execa('git', ['-C', repoDir, 'log', '-1', '--format=%(trailers:key=Upstream-Commit,valueonly)'], { reject: false })
  if (exitCode !== 0 || stdout.trim() !== corpus.commit) {
    return `${corpus.name}: ${repoDir} is not ${corpus.repo}@${corpus.commit} (it says ${stdout.trim() || 'nothing'}); ${hint}`
  }
  return null
}

/** The graded files and everything they include, transitively. */
async function reachable(files: RepoFiles, corpus: DevCorpus, graded: string[]): Promise<Set<string>> {
  const seen = new Set(graded)
  const queue = [...graded]
  while (queue.length > 0) {
    const page = queue.shift() as string
    const text = await files.text(page)
    if (text === null) continue
    for (const included of directIncludes(files.repoDir, page, text, corpus.includeRoots)) {
      if (seen.has(included)) continue
      seen.add(included)
      queue.push(included)
    }
  }
  return seen
}

async function checkQuestion(q: DevQuestion, corpus: DevCorpus, files: RepoFiles): Promise<string[]> {
  const problems: string[] = []
  const where = `[${q.library}] "${q.question}"`
  const graded = Object.keys(q.relevant)
  for (const file of graded) {
    if ((await files.text(file)) === null) problems.push(`${where}: ${file} is not a file of ${corpus.repo}@${corpus.commit.slice(0, 12)}`)
  }
  if (q.intent === 'howto' && q.codeMustContain === undefined) problems.push(`${where}: a how-to question needs codeMustContain`)
  if (q.codeMustContain !== undefined && problems.length === 0) {
    const needle = q.codeMustContain
    const holders: string[] = []
    for (const file of await reachable(files, corpus, graded)) {
      const text = await files.text(file)
      if (text !== null && codeText(file, text).includes(needle)) holders.push(file)
    }
    if (holders.length === 0) problems.push(`${where}: codeMustContain ${JSON.stringify(needle)} occurs in the code of no graded file nor of anything they include`)
    else if (!holders.some((f) => graded.includes(f))) {
      problems.push(`${where}: codeMustContain ${JSON.stringify(needle)} is only in ${holders.join(', ')}, included by a graded page; grade that file too`)
    }
  }
  return problems
}

function checkSet(questions: DevQuestion[], corpora: DevCorpus[]): string[] {
  const problems: string[] = []
  const names = new Set(corpora.map((c) => c.name))
  const seen = new Set<string>()
  for (const q of questions) {
    if (!names.has(q.library)) problems.push(`"${q.question}": library "${q.library}" is not in dev-corpora.json`)
    if (seen.has(questionId(q))) problems.push(`[${q.library}] "${q.question}" is asked twice`)
    seen.add(questionId(q))
  }
  if (questions.length < MIN_QUESTIONS) problems.push(`${questions.length} questions; the development set needs at least ${MIN_QUESTIONS}`)
  const libraries = new Set(questions.map((q) => q.library))
  if (libraries.size < MIN_LIBRARIES) problems.push(`questions about ${libraries.size} corpora; the development set needs at least ${MIN_LIBRARIES}`)
  const held = holdoutDraw(questions)
  for (const q of questions) {
    if (q.holdout !== held.has(questionId(q))) {
      problems.push(`[${q.library}] "${q.question}": holdout is ${q.holdout}, the seeded draw says ${held.has(questionId(q))}; run npm run eval:holdout`)
    }
  }
  return problems
}

function summary(questions: DevQuestion[]): string {
  const libraries = [...new Set(questions.map((q) => q.library))]
  const rows = libraries.map((library) => {
    const mine = questions.filter((q) => q.library === library)
    const counts = INTENTS.map((intent) => String(mine.filter((q) => q.intent === intent).length).padStart(5))
    const code = mine.filter((q) => q.codeMustContain !== undefined).length
    return `${library.padEnd(14)} ${String(mine.length).padStart(5)} ${counts.join(' ')} ${String(code).padStart(5)} ${String(mine.filter((q) => q.holdout).length).padStart(7)}`
  })
  const totals = INTENTS.map((intent) => String(questions.filter((q) => q.intent === intent).length).padStart(5))
  const code = questions.filter((q) => q.codeMustContain !== undefined).length
  return [
    `${'corpus'.padEnd(14)} total ${INTENTS.map((i) => i.slice(0, 5).padStart(5)).join(' ')}  code holdout`,
    ...rows,
    `${'all'.padEnd(14)} ${String(questions.length).padStart(5)} ${totals.join(' ')} ${String(code).padStart(5)} ${String(questions.filter((q) => q.holdout).length).padStart(7)}`,
  ].join('\n')
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { repos: { type: 'string' } } })
  const reposRoot = path.resolve(values.repos ?? defaultReposRoot())
  const { corpora } = await loadManifest()
  const questions = await loadDevQuestions()
  const problems = checkSet(questions, corpora)
  for (const corpus of corpora) {
    const mine = questions.filter((q) => q.library === corpus.name)
    if (mine.length === 0) continue
    const repoDir = path.join(reposRoot, corpus.name)
    const unprepared = await checkPrepared(corpus, repoDir)
    if (unprepared) {
      problems.push(unprepared)
      continue
    }
    const files = new RepoFiles(repoDir)
    for (const q of mine) problems.push(...(await checkQuestion(q, corpus, files)))
  }
  console.log(summary(questions))
  if (problems.length > 0) {
    console.error(`\n${problems.length} problems:\n${problems.map((p) => `- ${p}`).join('\n')}`)
    process.exitCode = 1
    return
  }
  console.log(`\nall ${questions.length} questions check out against ${reposRoot}`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err)
  process.exitCode = 1
})
