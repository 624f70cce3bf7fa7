/**
 * `lectern eval` as an operator runs it: their own question file, scored against this data
 * directory or a running server, with the same metrics as `npm run eval`.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { startServer } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { widgetsFiles } from '../helpers/widgets-repo.js'

vi.setConfig({ testTimeout: 180_000 })

const defer = suiteTeardown()
let dataDir: string
let work: string
let gitEnv: Record<string, string>

const QUESTIONS = [
  { library: '/acme/widgets', question: 'set the default theme and timeout for every widget', relevant: { 'docs/guide.md': 2 }, codeMustContain: 'configure({' },
  { library: '/acme/widgets', question: 'how do I install the package', relevant: { 'README.md': 2 } },
]

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(widgetsFiles(), { parent: remotes, name: 'widgets' })
  gitEnv = gitRedirectEnv(remotes)
  dataDir = await tmpDataDir(defer)
  work = await tmpDir('lectern-eval-', defer)
  await writeFile(join(work, 'questions.json'), JSON.stringify(QUESTIONS))
  const added = await runCli(['add', 'https://github.com/acme/widgets', '--wait', '--data-dir', dataDir], gitEnv)
  expect(added.exitCode, added.stderr).toBe(0)
})

describe('lectern eval', () => {
  it('scores a question file against the data directory, with a table for people and the report with --json', async () => {
    const table = await runCli(['eval', join(work, 'questions.json'), '--data-dir', dataDir])
    expect(table.exitCode, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/library\s*\|\s*questions\s*\|\s*Hit@1\s*\|\s*Hit@5\s*\|\s*MRR@10/)
    expect(table.stdout).toMatch(/\| \/acme\/widgets \| 2 \| \d\.\d{3} \| 1\.000 \| \d\.\d{3} \|/)
    const json = await runCli(['eval', join(work, 'questions.json'), '--data-dir', dataDir, '--json'])
    const report = JSON.parse(json.stdout) as { overall: { questions: number; hit5: number; codeHit5: number; codeQuestions: number }; scores: Array<{ firstRelevant: number }> }
    expect(report.overall).toMatchObject({ questions: 2, hit5: 1, codeHit5: 1, codeQuestions: 1 })
    for (const score of report.scores) expect(score.firstRelevant).toBeLessThanOrEqual(5)
  })

  it('asks a running server over HTTP with --url', async () => {
    const server = await startServer(dataDir, gitEnv)
    const result = await runCli(['eval', join(work, 'questions.json'), '--url', server.url, '--json', '--data-dir', dataDir])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).overall).toMatchObject({ questions: 2, hit5: 1 })
    server.process.kill('SIGTERM')
    await server.process
  })

  it('refuses a malformed question file and an unknown library with their codes, and lists misses', async () => {
    await writeFile(join(work, 'bad.json'), JSON.stringify([{ library: '/acme/widgets', question: 'x?', relevant: {} }]))
    const bad = await runCli(['eval', join(work, 'bad.json'), '--data-dir', dataDir, '--json'])
    expect(bad.exitCode).toBe(2)
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: 'validation_error', message: expect.stringContaining('needs at least one file graded 2') })
    await writeFile(join(work, 'unknown.json'), JSON.stringify([{ library: '/acme/nothing', question: 'install it', relevant: { 'README.md': 2 } }]))
    const unknown = await runCli(['eval', join(work, 'unknown.json'), '--data-dir', dataDir, '--json'])
    expect(unknown.exitCode).toBe(4)
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: 'library_not_found' })
    await writeFile(join(work, 'miss.json'), JSON.stringify([{ library: '/acme/widgets', question: 'how do I install the package', relevant: { 'docs/nowhere.md': 2 } }]))
    const miss = await runCli(['eval', join(work, 'miss.json'), '--data-dir', dataDir, '--misses'])
    expect(miss.exitCode).toBe(0)
    expect(miss.stdout).toContain('missed [/acme/widgets] how do I install the package')
  })
})
