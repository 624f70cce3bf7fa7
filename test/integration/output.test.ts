/**
 * Output for people and for scripts: a table with a header, human dates, colour only on a
 * terminal (and never with NO_COLOR); --json keeps machine data (ISO dates).
 */
import { execa } from 'execa'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { suiteTeardown, tmpDataDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const defer = suiteTeardown()
let dataDir: string

beforeAll(async () => {
  dataDir = await tmpDataDir(defer)
  for (const name of ['ci', 'grafana']) expect((await runCli(['keys', 'create', '--name', name, '--data-dir', dataDir])).exitCode).toBe(0)
})

/** `keys list` on a pseudo-terminal (`script`), with the colour variables of `env` only. */
async function onTerminal(env: Record<string, string>): Promise<string> {
  const result = await execa('script', ['-qec', `node bin/run.js keys list --data-dir ${dataDir}`, '/dev/null'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH, TERM: 'xterm-256color', ...env },
    extendEnv: false,
    input: '',
  })
  return result.stdout
}

describe('keys list', () => {
  it('piped: a plain table with a header and human dates, no escape codes', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NO_COLOR' && name !== 'FORCE_COLOR'))
    const result = await execa('node', ['bin/run.js', 'keys', 'list', '--data-dir', dataDir], { cwd: PROJECT_ROOT, env, extendEnv: false, stdin: 'ignore' })
    const [header, ...rows] = result.stdout.split('\n')
    expect(header).toMatch(/^ID\s+NAME\s+KEY\s+CREATED\s+LAST USED\s+STATUS$/)
    expect(rows).toHaveLength(2)
    expect(rows[0]).toMatch(/^\s*1\s+ci\s+lct_\w+\.\.\.\s+\d+ seconds? ago\s+never\s+active$/)
    expect(result.stdout).not.toContain('\x1b')
  })

  it('on a terminal: in colour, unless NO_COLOR is set', async () => {
    expect(await onTerminal({})).toContain('\x1b[1mID')
    expect(await onTerminal({ NO_COLOR: '1' })).not.toContain('\x1b[')
  })

  it('--json: machine data, ISO dates', async () => {
    const keys = JSON.parse((await runCli(['keys', 'list', '--json', '--data-dir', dataDir])).stdout) as Array<{ createdAt: string }>
    expect(keys.map((k) => k.createdAt)).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/), expect.stringMatching(/^\d{4}-/)])
  })
})
