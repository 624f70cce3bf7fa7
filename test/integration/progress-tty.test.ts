/**
 * `lectern add --wait` on a pseudo-terminal, as CI wrappers and coding agents run it: it ends,
 * and its progress never loops. A terminal reporting 0 columns (`stty cols 0`) gets plain lines
 * without escape codes; a normal one a redrawn line, a bounded number of times.
 */
import { execa } from 'execa'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { widgetsFiles } from '../helpers/widgets-repo.js'

vi.setConfig({ testTimeout: 180_000 })

const defer = suiteTeardown()
let gitEnv: Record<string, string>

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(widgetsFiles(), { parent: remotes, name: 'widgets', defer })
  gitEnv = gitRedirectEnv(remotes)
})

/** Runs `add --wait` under `script`, which gives it a pseudo-terminal of `columns` columns. */
async function addOnTerminal(columns: number): Promise<{ output: string; exitCode: number; ms: number }> {
  const dataDir = await tmpDataDir()
  const started = Date.now()
  const command = `stty cols ${columns} rows 24; node bin/run.js add https://github.com/acme/widgets --wait --data-dir ${dataDir}`
  const result = await execa('script', ['-qec', command, '/dev/null'], { cwd: PROJECT_ROOT, env: { ...gitEnv, TERM: 'xterm-256color' }, input: '', reject: false, timeout: 120_000 })
  return { output: result.stdout, exitCode: result.exitCode ?? -1, ms: Date.now() - started }
}

describe('add --wait on a terminal', () => {
  it('of 0 columns: ends, and prints plain lines with no escape codes', async () => {
    const { output, exitCode } = await addOnTerminal(0)
    expect(exitCode, output).toBe(0)
    expect(output).not.toContain('\x1b[')
    const lines = output.split(/\r?\n/).filter(Boolean)
    expect(lines).toContain('/acme/widgets: queued')
    expect(lines.some((l) => l.startsWith('done: /acme/widgets: '))).toBe(true)
    expect(lines.at(-1)).toContain('/acme/widgets is ready')
    // Each status once: no line printed over and over.
    expect(new Set(lines).size).toBe(lines.length)
  })

  it('of 100 columns: ends, with one redrawn line drawn a bounded number of times', async () => {
    const { output, exitCode, ms } = await addOnTerminal(100)
    expect(exitCode, output).toBe(0)
    const redraws = output.split('\r\x1b[2K').length - 1
    expect(redraws).toBeGreaterThan(0)
    // At most one frame per 120 ms tick plus one per status change: a loop would write millions.
    expect(redraws).toBeLessThan(ms / 120 + 200)
    expect(output).toContain('/acme/widgets is ready')
  })
})
