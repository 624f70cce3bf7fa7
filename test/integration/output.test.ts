/**
 * Output for people and for scripts: a table with a header, human dates and sizes, colour only on
 * a terminal (and never with NO_COLOR); --json keeps machine data (ISO dates, sizes in bytes).
 */
import fs from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

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
    expect(header).toMatch(/^ID\s+NAME\s+KEY\s+OWNER\s+TEAM\s+CREATED\s+LAST USED\s+STATUS$/)
    expect(rows).toHaveLength(2)
    expect(rows[0]).toMatch(/^\s*1\s+ci\s+lct_\w+\.\.\.\s+-\s+-\s+\d+ seconds? ago\s+never\s+active$/)
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

describe('backup sizes', () => {
  /** A human size as pretty-bytes writes it, e.g. `25.1 kB`: never a bare byte count. */
  const HUMAN_SIZE = /\d+(\.\d+)? (kB|MB)/

  it('backup list and status piped: human sizes and dates; --json: sizes in bytes, ISO dates; restore says the unpacked size in human units', async () => {
    const backups = await tmpDir('lectern-backups-')
    const written = await runCli(['backup', '--to', backups, '--json', '--data-dir', dataDir])
    expect(written.exitCode, written.stderr).toBe(0)
    const { name, size } = JSON.parse(written.stdout) as { name: string; size: number }
    expect(size).toBe(fs.statSync(path.join(backups, name)).size)
    expect(size).toBeGreaterThan(1000)

    const listed = await runCli(['backup', 'list', '--to', backups, '--data-dir', dataDir])
    expect(listed.exitCode, listed.stderr).toBe(0)
    const rows = listed.stdout.split('\n')
    const header = rows.findIndex((line) => /^ARCHIVE\s+SIZE\s+CREATED$/.test(line))
    expect(header, listed.stdout).toBeGreaterThanOrEqual(0)
    expect(rows[header + 1]).toMatch(new RegExp(`^${name.replaceAll('.', '\\.')}\\s+${HUMAN_SIZE.source}\\s+\\d+ seconds? ago$`))
    expect(listed.stdout).not.toContain(String(size))

    const json = JSON.parse((await runCli(['backup', 'list', '--to', backups, '--json', '--data-dir', dataDir])).stdout) as { backups: Array<{ name: string; size: number; createdAt: string }> }
    expect(json.backups).toEqual([{ name, size, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), destination: expect.any(String) }])

    const status = await runCli(['backup', 'status', '--data-dir', dataDir])
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.stdout).toMatch(new RegExp(`Last backup: ${name.replaceAll('.', '\\.')} \\(${HUMAN_SIZE.source}\\) to dir:.*, finished \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC \\((now|\\d+ seconds? ago)\\)\\.`))
    expect(status.stdout).not.toContain(String(size))
    expect(status.stdout).not.toMatch(/\d\d:\d\d:\d\d\.\d{3}Z/)
    const statusJson = JSON.parse((await runCli(['backup', 'status', '--json', '--data-dir', dataDir])).stdout) as { last: { size: number; finishedAt: string } }
    expect(statusJson.last).toMatchObject({ size, finishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) })

    const restored = await runCli(['restore', path.join(backups, name), '--yes', '--data-dir', path.join(await tmpDir(), 'restored')])
    expect(restored.exitCode, restored.stderr).toBe(0)
    expect(restored.stderr).toMatch(new RegExp(`\\d+ files, ${HUMAN_SIZE.source} unpacked`))
  })
})
