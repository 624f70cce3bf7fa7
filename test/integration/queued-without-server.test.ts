/**
 * A job queued from the CLI without --wait runs only if a server does: when none holds the data
 * directory, the command says so on stderr (and how to run the job), and says nothing of the
 * kind while a server runs.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { gitRedirectEnv, git, makeGitRepo } from '../helpers/git.js'
import { startServer } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { widgetsFiles } from '../helpers/widgets-repo.js'

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 })

const NO_SERVER = 'No server is running: start `lectern serve` to run the job, or pass --wait to run it here.'
const defer = suiteTeardown()
let gitEnv: Record<string, string>

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
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

const QUEUEING = [
  ['add', 'https://github.com/acme/gadgets'],
  ['refresh', '/acme/widgets', '--force'],
  ['versions', 'add', '/acme/widgets', 'v2.0.0'],
]

describe('a job queued without --wait', () => {
  it('says that no server is running, on stderr only, and leaves the job queued', async () => {
    const dataDir = await install()
    for (const args of QUEUEING) {
      const result = await runCli([...args, '--data-dir', dataDir], gitEnv)
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stderr.replace(/\s+/g, ' '), args.join(' ')).toContain(NO_SERVER)
      expect(result.stdout, args.join(' ')).not.toContain('No server')
    }
    const jobs = JSON.parse((await runCli(['jobs', '--json', '--data-dir', dataDir])).stdout) as { activeParses: Record<string, { status: string }> }
    expect(Object.values(jobs.activeParses).map((j) => j.status)).toEqual(['queued', 'queued', 'queued'])
  })

  it('says nothing of the kind while a server runs the queue', async () => {
    const dataDir = await install()
    await startServer(dataDir, gitEnv)
    for (const args of QUEUEING) {
      const result = await runCli([...args, '--data-dir', dataDir], gitEnv)
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stderr, args.join(' ')).not.toContain('No server is running')
    }
  })
})
