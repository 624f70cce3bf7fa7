/**
 * A command imports what it needs and no more: --version and --help answer from oclif's manifest
 * without importing any command, and a command that reads the data directory leaves the job
 * handlers, the sources, the parsers, the server, the AWS SDK and the browser unloaded (they cost
 * seconds of start-up). The real binary runs with a preloaded hook (test/helpers/record-imports.mjs)
 * that writes down every module it imports.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 60_000 })

const defer = suiteTeardown()

/** Packages that only some paths use: jobs, S3 backups, rendering, the server, MCP. */
const ON_DEMAND = [
  '@apidevtools/swagger-parser',
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  '@modelcontextprotocol/sdk',
  '@notionhq/client',
  'execa',
  'fastify',
  'gpt-tokenizer',
  'linkedom',
  'markdown-it',
  'pino',
  'playwright-core',
  'remark-parse',
  'typescript',
  'web-tree-sitter',
]

let dataDir: string
let records: string

beforeAll(async () => {
  dataDir = await tmpDataDir(defer)
  records = await tmpDir('lectern-imports-', defer)
  expect((await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dataDir])).exitCode).toBe(0)
})

/** The modules `lectern <args>` imported, as paths under the project (`dist/commands/keys/list.js`, `node_modules/knex/...`). */
async function importsOf(args: string[]): Promise<{ exitCode: number; stdout: string; modules: string[] }> {
  const file = path.join(records, `${args.join('_').replace(/\W/g, '-')}.txt`)
  const result = await execa('node', ['--import', path.join(PROJECT_ROOT, 'test/helpers/record-imports.mjs'), path.join(PROJECT_ROOT, 'bin/run.js'), ...args], {
    cwd: PROJECT_ROOT,
    env: { NO_COLOR: '1', RECORD_IMPORTS: file },
    stdin: 'ignore',
    reject: false,
  })
  const urls = (await readFile(file, 'utf8')).split('\n').filter((url) => url.startsWith('file://'))
  const modules = urls.map((url) => path.relative(PROJECT_ROOT, new URL(url).pathname))
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, modules }
}

const packagesIn = (modules: string[]) => new Set(modules.flatMap((m) => /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m)?.[1] ?? []))

describe('command start-up', () => {
  it('--version, --help and a command help import no command module', async () => {
    const runs = await Promise.all([importsOf(['--version']), importsOf(['--help']), importsOf(['serve', '--help'])])
    for (const run of runs) expect(run.exitCode).toBe(0)
    expect(runs[0]!.stdout).toMatch(/^lectern\/\d+\.\d+\.\d+ /)
    expect(runs[1]!.stdout).toContain('keys')
    expect(runs[2]!.stdout).toContain('--rate-limit-anonymous')
    for (const run of runs) {
      expect(packagesIn(run.modules)).toContain('@oclif/core')
      expect(run.modules.filter((m) => m.startsWith('dist/'))).toEqual([])
    }
  })

  it.each([
    [['keys', 'list'], 'dist/commands/keys/list.js', 0],
    [['search', 'fastify'], 'dist/commands/search.js', 4],
    [['backup', 'list'], 'dist/commands/backup/list.js', 0],
  ])('%j imports its own command and none of the packages of jobs, S3, rendering or the server', async (args, command, exitCode) => {
    const run = await importsOf([...args, '--data-dir', dataDir])
    expect(run.exitCode).toBe(exitCode)
    expect(run.modules).toContain(command)
    const packages = packagesIn(run.modules)
    expect(packages).toContain('better-sqlite3')
    expect(ON_DEMAND.filter((name) => packages.has(name))).toEqual([])
    // The job handlers (and the sources and parsers behind them) load when a job runs.
    expect(run.modules.filter((m) => /^dist\/(server\/|src\/(parse\/|sources\/registry|jobs\/(ingest|git-job|source-job|reembed|vector-rebuild)|airgap\/import))/.test(m))).toEqual([])
  })
})
