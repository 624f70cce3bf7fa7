/**
 * The built CLI as users run it: separate processes, no TTY, JSON on stdout with --json, and
 * exit codes from the error catalogue. Run `npm run build` first so dist/ is current.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { Config } from '@oclif/core'
import { beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { acquireDataDirLock } from '../../src/store/lock.js'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { freePort } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { widgetsFiles } from '../helpers/widgets-repo.js'

// Every step spawns node; on a loaded two-core machine a spawn can take seconds.
vi.setConfig({ testTimeout: 120_000 })

const defer = suiteTeardown()
let gitEnv: Record<string, string>

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(widgetsFiles(), { parent: remotes, name: 'widgets' })
  gitEnv = gitRedirectEnv(remotes)
})

/** Runs a command against a data dir and parses its --json output. */
async function json<T>(dataDir: string, args: string[]): Promise<T> {
  const result = await runCli([...args, '--data-dir', dataDir, '--json'], gitEnv)
  expect(result.exitCode, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as T
}

/** oclif wraps error messages to the terminal width; compare them as one line. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ')

/** Every file of the data dir, concatenated: what an attacker with a copy of it could read. */
async function dataDirBytes(dataDir: string): Promise<Buffer> {
  const files = await readdir(dataDir, { recursive: true, withFileTypes: true })
  return Buffer.concat(await Promise.all(files.filter((f) => f.isFile()).map((f) => readFile(join(f.parentPath, f.name)))))
}

describe('keys', () => {
  it('creates a key shown once, lists without it, stores only a hash, revokes; secret.key is 0600', async () => {
    const dataDir = await tmpDataDir()
    const created = await json<{ id: number; key: string; name: string }>(dataDir, ['keys', 'create', '--name', 'ci'])
    expect(created.key).toMatch(/^lct_[0-9A-Za-z]{40}$/)
    expect(created.name).toBe('ci')
    // The data directory's secret key is readable by its owner only.
    expect((await stat(join(dataDir, 'secret.key'))).mode & 0o777).toBe(0o600)

    const listed = await runCli(['keys', 'list', '--data-dir', dataDir, '--json'])
    expect(listed.exitCode).toBe(0)
    expect(listed.stdout).not.toContain(created.key)
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: created.id, name: 'ci', revokedAt: null })])
    // Neither the database nor its WAL holds the key, nor its random body.
    const bytes = await dataDirBytes(dataDir)
    expect(bytes.includes(created.key)).toBe(false)
    expect(bytes.includes(created.key.slice(4))).toBe(false)

    const revoked = await json<{ revokedAt: string | null }>(dataDir, ['keys', 'revoke', String(created.id)])
    expect(revoked.revokedAt).toEqual(expect.any(String))
    const [after] = await json<Array<{ revokedAt: string | null }>>(dataDir, ['keys', 'list'])
    expect(after.revokedAt).toBe(revoked.revokedAt)
  })

  it('revoking an unknown key fails with the not-found exit code', async () => {
    const dataDir = await tmpDataDir()
    await json(dataDir, ['keys', 'create', '--name', 'only'])
    const result = await runCli(['keys', 'revoke', '42', '--data-dir', dataDir])
    expect(result.exitCode).toBe(4)
    expect(oneLine(result.stderr)).toContain('No API key with ID 42')
  })
})

describe('libraries without a server', () => {
  it('adds with --wait, lists, searches, answers, renames and removes', async () => {
    const dataDir = await tmpDataDir()
    const added = await json<{ libraryName: string; state: string; snippets: number; pages: number }>(dataDir, ['add', 'https://github.com/acme/widgets', '--wait'])
    expect(added).toMatchObject({ libraryName: '/acme/widgets', state: 'succeeded' })

    // Readers share the data dir, so they run side by side.
    const [[listed], found, docs] = await Promise.all([
      json<Array<{ id: string; state: string; totalSnippets: number }>>(dataDir, ['libraries', 'list']),
      runCli(['search', 'widgts', '--data-dir', dataDir]),
      json<{ codeSnippets: Array<{ codeList: Array<{ code: string }> }> }>(dataDir, ['docs', '/acme/widgets', 'install with npm yarn pnpm']),
    ])
    expect(listed).toMatchObject({ id: '/acme/widgets', state: 'finalized' })
    expect(listed.totalSnippets).toBeGreaterThan(5)
    // --wait ends with what the library serves: its snippets and the pages they came from.
    expect(added.snippets).toBe(listed.totalSnippets)
    expect(added.pages).toBeGreaterThan(1)
    expect(added.pages).toBeLessThan(added.snippets)
    // Said for people too, with the data directory the command was given, so the next command works as printed.
    const otherDir = await tmpDataDir()
    const again = await runCli(['add', 'https://github.com/acme/widgets', '--wait', '--data-dir', otherDir], gitEnv)
    expect(again.stdout.split('\n').at(-1)).toBe(`/acme/widgets is ready: ${added.snippets} snippets from ${added.pages} pages. Ask it: lectern docs /acme/widgets "<your question>" --data-dir ${otherDir}`)
    expect(found.exitCode).toBe(0)
    const [header, first] = found.stdout.split('\n')
    expect(header).toMatch(/^LIBRARY\s+STATE\s+SNIPPETS\s+DESCRIPTION$/)
    expect(first).toMatch(/^\/acme\/widgets\s+finalized\s/)
    expect(docs.codeSnippets[0].codeList.map((c) => c.code)).toEqual(['npm install widgets', 'yarn add widgets', 'pnpm add widgets'])

    // A question of spaces alone is refused as REST refuses it, not answered with arbitrary snippets.
    const blank = await runCli(['docs', '/acme/widgets', '   ', '--data-dir', dataDir, '--json'])
    expect(blank.exitCode).toBe(2)
    expect(JSON.parse(blank.stdout)).toEqual({ error: 'validation_error', message: expect.stringContaining('The question (query) has no words') })
    // oclif's parser refusal is one sentence that names the command's help, in --json too.
    const tooMany = await runCli(['docs', '/acme/widgets', 'install', '--tokens', '1000000', '--data-dir', dataDir, '--json'])
    expect(tooMany.exitCode).toBe(2)
    expect(JSON.parse(tooMany.stdout)).toEqual({
      error: 'validation_error',
      message: '--tokens: Expected an integer less than or equal to 50000 but received: 1000000. See `lectern docs --help`.',
    })
    // One line, the code last, even where oclif itself would wrap the argument's description (30 columns).
    const narrow = await runCli(['docs', '/acme/widgets', '--data-dir', dataDir], { OCLIF_COLUMNS: '30' })
    expect(narrow.exitCode).toBe(2)
    expect(narrow.stderr).toBe('Error: Missing 1 required arg: query (Your question in plain words). See `lectern docs --help`. (validation_error)')

    expect((await runCli(['libraries', 'rename', '/acme/widgets', '/acme/gadgets', '--data-dir', dataDir])).exitCode).toBe(0)
    const moved = await runCli(['docs', '/acme/widgets', 'install', '--data-dir', dataDir])
    expect(moved.exitCode).toBe(5)
    expect(oneLine(moved.stderr)).toContain('moved to /acme/gadgets')

    const engine = join(dataDir, 'engine')
    expect((await readdir(engine)).filter((f) => f.endsWith('.engine'))).toHaveLength(1)
    const refused = await runCli(['libraries', 'remove', '/acme/gadgets', '--data-dir', dataDir])
    expect(refused.exitCode).toBe(2)
    expect(oneLine(refused.stderr)).toContain('pass --yes')
    expect((await readdir(engine)).filter((f) => f.endsWith('.engine'))).toHaveLength(1)

    expect((await runCli(['libraries', 'remove', '/acme/gadgets', '--yes', '--data-dir', dataDir])).exitCode).toBe(0)
    expect(await readdir(engine)).toEqual([])
    expect(await json<unknown[]>(dataDir, ['libraries', 'list'])).toEqual([])
  })

  it('add --wait of a repository that cannot be cloned fails with a non-zero exit', async () => {
    const result = await runCli(['add', 'https://github.com/acme/missing', '--wait', '--data-dir', await tmpDataDir()], gitEnv)
    expect(result.exitCode).toBe(1)
    expect(oneLine(result.stderr)).toContain('git clone of https://github.com/acme/missing failed')
  })
})

describe('serve', () => {
  it('refuses a data dir whose lock a live process holds', async () => {
    const dataDir = await tmpDataDir()
    // This test process takes the lock, as a running server would.
    const lock = acquireDataDirLock(join(dataDir, 'lectern.lock'), dataDir)
    onTestFinished(() => lock.release())
    const result = await runCli(['serve', '--data-dir', dataDir, '--port', String(await freePort())])
    expect(result.exitCode).toBe(8)
    expect(oneLine(result.stderr)).toContain(`in use by Lectern process ${process.pid} on ${hostname()}`)
    expect(JSON.parse(await readFile(join(dataDir, 'lectern.lock'), 'utf8')).pid).toBe(process.pid)
  })
})

describe('--help', () => {
  it('every command has a summary and examples that run the command itself', async () => {
    const config = await Config.load(PROJECT_ROOT)
    expect(config.commands.length).toBeGreaterThan(20)
    for (const command of config.commands) {
      const id = command.id.replaceAll(':', ' ')
      expect(command.summary, id).toBeTruthy()
      const examples = (command.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command))
      expect(examples.length, `${id} has examples`).toBeGreaterThan(0)
      expect(examples.some((e) => e.includes('<%= command.id %>') || e.includes(`lectern ${id}`)), `${id} examples run it`).toBe(true)
    }
  })

  it('every topic has a description of its own, and help text has no line breaks inside a paragraph', async () => {
    const config = await Config.load(PROJECT_ROOT)
    const topics = new Set(config.commands.flatMap((c) => c.id.split(':').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join(' '))))
    const described = config.pjson.oclif.topics as Record<string, { description: string }>
    for (const topic of topics) {
      expect(described[topic]?.description, `topic ${topic}`).toMatch(/^[A-Z].{20,}\.$/)
    }
    for (const command of config.commands) {
      const id = command.id.replaceAll(':', ' ')
      for (const paragraph of (command.description ?? '').split('\n\n')) expect(paragraph, `${id} description`).not.toContain('\n')
      expect(command.summary ?? '', `${id} summary`).not.toContain('\n')
      for (const [name, flag] of Object.entries(command.flags)) expect(flag.summary ?? '', `${id} --${name}`).not.toContain('\n')
    }
  })

  it('renders a command\'s help with its examples', async () => {
    const help = await runCli(['keys', 'create', '--help'])
    expect(help.exitCode).toBe(0)
    expect(help.stdout).toMatch(/EXAMPLES\n(.*\n)*\s+\$ lectern keys create --name ci/)
  })
})
