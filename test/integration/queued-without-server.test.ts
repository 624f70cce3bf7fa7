/**
 * A job queued from the CLI without --wait runs only if a server does: when none holds the data
 * directory, the command says so on stderr (and how to run the job), and says nothing of the
 * kind while a server runs.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'
import { gitRedirectEnv, git, makeGitRepo } from '../helpers/git.js'
import { PETSHOP_YAML } from '../helpers/openapi-fixtures.js'
import { startServer } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { widgetsFiles } from '../helpers/widgets-repo.js'

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 })

const NO_SERVER = 'No server is running: start `lectern serve` to run the job, or pass --wait to run it here.'
const defer = suiteTeardown()
let gitEnv: Record<string, string>
let specFile: string

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  specFile = path.join(remotes, 'billing-api.yaml')
  await writeFile(specFile, PETSHOP_YAML)
  const { dir } = await makeGitRepo(widgetsFiles(), { parent: remotes, name: 'widgets', defer })
  await git(['tag', 'v2.0.0'], dir)
  await makeGitRepo({ 'README.md': '# Gadgets\n\nGadgets are small widgets that fit in a pocket and do one thing well.\n' }, { parent: remotes, name: 'gadgets', defer })
  gitEnv = gitRedirectEnv(remotes)
})

/** A data directory holding /acme/widgets, ingested here. */
async function install(): Promise<string> {
  const dataDir = await tmpDataDir()
  const added = await runCli(['add', 'https://github.com/acme/widgets', '--wait', '--data-dir', dataDir], gitEnv)
  expect(added.exitCode, added.stderr).toBe(0)
  return dataDir
}

const QUEUEING = () => [
  ['add', 'https://github.com/acme/gadgets'],
  ['add', 'llmstxt', 'https://docs.example.com/llms.txt'],
  ['add', 'openapi', 'https://api.example.com/v3/openapi.json'],
  ['add', 'openapi', specFile, '--title', 'Billing API'],
  ['refresh', '/acme/widgets', '--force'],
  ['versions', 'add', '/acme/widgets', 'v2.0.0'],
]
/** A new embedding provider (the built-in one at another dimension) re-embeds every set. */
const SWITCH_EMBEDDING = ['config', 'set', 'embedding.provider', 'hash', '--dimensions', '128']

describe('a job queued without --wait', () => {
  it('says that no server is running, on stderr only, and leaves the job queued', async () => {
    const dataDir = await install()
    for (const args of QUEUEING()) {
      const result = await runCli([...args, '--data-dir', dataDir], gitEnv)
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stderr.replace(/\s+/g, ' '), args.join(' ')).toContain(NO_SERVER)
      expect(result.stdout, args.join(' ')).not.toContain('No server')
      // Queued is all that happened: nothing has started without a server.
      expect(result.stdout, args.join(' ')).not.toMatch(/started/i)
      if (args[0] === 'refresh') expect(result.stdout).toMatch(/^Refresh of \/acme\/widgets queued \(job \d+\)\.$/m)
    }
    const jobs = JSON.parse((await runCli(['jobs', '--json', '--data-dir', dataDir])).stdout) as { activeParses: Record<string, { status: string }> }
    expect(Object.keys(jobs.activeParses).sort()).toEqual(['/acme/gadgets', '/acme/widgets', '/acme/widgets@v2.0.0', '/docs/billing-api', '/docs/api.example.com-v3-openapi', '/llmstxt/docs.example.com-llms.txt'].sort())
    expect(new Set(Object.values(jobs.activeParses).map((j) => j.status))).toEqual(new Set(['queued']))
  })

  it('config set embedding.provider and config reembed say it too when they queue re-embedding', async () => {
    const dataDir = await install()
    const switched = await runCli([...SWITCH_EMBEDDING, '--data-dir', dataDir])
    expect(switched.exitCode, switched.stderr).toBe(0)
    expect(switched.stdout).toMatch(/queued re-embedding of 1 snippet sets/)
    expect(switched.stderr.replace(/\s+/g, ' ')).toContain(NO_SERVER)
    // The re-embedding fails, as when the provider went away half-way: `config reembed` queues it again.
    const store = await openStore(dataDir)
    for (const job of await store.jobs.list({ states: ['queued'] })) await store.jobs.fail(job, 'internal_error', 'the provider went away')
    await store.close()
    const reembed = await runCli(['config', 'reembed', '--data-dir', dataDir])
    expect(reembed.exitCode, reembed.stderr).toBe(0)
    expect(reembed.stdout).toContain('Queued re-embedding of 1 snippet sets.')
    expect(reembed.stderr.replace(/\s+/g, ' ')).toContain(NO_SERVER)
    // Nothing more to queue, so nothing to say about a server.
    const again = await runCli(['config', 'reembed', '--data-dir', dataDir])
    expect(again.stdout).toContain('is queued for it')
    expect(again.stderr).not.toContain('No server')
  })

  it('says nothing of the kind while a server runs the queue', async () => {
    const dataDir = await install()
    await startServer(dataDir, gitEnv)
    for (const args of [...QUEUEING(), SWITCH_EMBEDDING]) {
      const result = await runCli([...args, '--data-dir', dataDir], gitEnv)
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stderr, args.join(' ')).not.toContain('No server is running')
    }
  })
})
