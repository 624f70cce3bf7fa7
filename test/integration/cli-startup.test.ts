/**
 * A command imports what it needs and no more: --version and --help answer from oclif's manifest
 * without importing any command, and a command that reads the data directory leaves the job
 * handlers, the sources, the parsers, the server, the AWS SDK, the browser and (on a current
 * database) the migration runner unloaded (they cost
 * seconds of start-up). Commands that queue jobs (`add`, `refresh`, `versions add`) import the
 * job kinds, not the handlers or source readers that run them. The real binary runs with a
 * preloaded hook (test/helpers/record-imports.mjs) that writes down every module it imports.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { git, gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
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
  // Migrations only: a database that is current opens without it.
  'knex',
  'linkedom',
  'markdown-it',
  'pino',
  'playwright-core',
  'remark-parse',
  'typescript',
  'web-tree-sitter',
]

/** Modules that run jobs: handlers, source readers, parsers, and the server. */
const JOB_MODULES = /^dist\/(server\/|src\/(parse\/|sources\/(registry|git-reader|discover|openapi|llmstxt|website|confluence|notion)\.|jobs\/(ingest|source-job|reembed|vector-rebuild)\.|index\/(build|vectors|reembed)\.|airgap\/import))/

let dataDir: string
let records: string
/** Sends https://github.com/acme/<repo> to local repositories. */
let gitEnv: Record<string, string>

beforeAll(async () => {
  dataDir = await tmpDataDir(defer)
  records = await tmpDir('lectern-imports-', defer)
  const remotes = await tmpDir('lectern-remotes-', defer)
  const widgets = await makeGitRepo({ 'docs/guide.md': '# Guide\n\n## Connect\n\n```js\nconnect()\n```\n' }, { parent: remotes, name: 'widgets', defer })
  await git(['tag', 'v1.0.0'], widgets.dir)
  gitEnv = gitRedirectEnv(remotes)
  expect((await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dataDir])).exitCode).toBe(0)
  // A library with no job left, for refresh and versions add; its job runs in this run, not the recorded ones.
  const added = await runCli(['add', 'https://github.com/acme/widgets', '--wait', '--data-dir', dataDir], gitEnv)
  expect(added.exitCode, added.stderr).toBe(0)
})

/** The modules `lectern <args>` imported, as paths under the project (`dist/commands/keys/list.js`, `node_modules/knex/...`). */
async function importsOf(args: string[], env: Record<string, string> = {}): Promise<{ exitCode: number; stdout: string; stderr: string; modules: string[] }> {
  const file = path.join(records, `${args.join('_').replace(/\W/g, '-')}.txt`)
  const result = await execa('node', ['--import', path.join(PROJECT_ROOT, 'test/helpers/record-imports.mjs'), path.join(PROJECT_ROOT, 'bin/run.js'), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...env, NO_COLOR: '1', RECORD_IMPORTS: file },
    stdin: 'ignore',
    reject: false,
  })
  const urls = (await readFile(file, 'utf8')).split('\n').filter((url) => url.startsWith('file://'))
  const modules = urls.map((url) => path.relative(PROJECT_ROOT, new URL(url).pathname))
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr, modules }
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
    expect(run.modules.filter((m) => JOB_MODULES.test(m))).toEqual([])
  })

  it.each([
    [['add', 'https://github.com/acme/gadgets'], 'dist/commands/add.js', []],
    [['refresh', '/acme/widgets'], 'dist/commands/refresh.js', []],
    // Asking the remote whether the tag exists runs git.
    [['versions', 'add', '/acme/widgets', 'v1.0.0'], 'dist/commands/versions/add.js', ['execa']],
  ])('%j queues its job importing the job kinds, not the handlers or source readers', async (args, command, allowed) => {
    const run = await importsOf([...args, '--data-dir', dataDir], gitEnv)
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/queued|submitted for processing/)
    expect(run.modules).toContain(command)
    expect(run.modules).toContain('dist/src/jobs/kinds.js')
    const packages = packagesIn(run.modules)
    expect(ON_DEMAND.filter((name) => packages.has(name) && !allowed.includes(name))).toEqual([])
    expect(run.modules.filter((m) => JOB_MODULES.test(m))).toEqual([])
  })
})
