/**
 * The mode is a property of the data directory: the first `lectern serve` records it, commands
 * told no mode run in it, every command refuses another one unless switched with `lectern config set
 * install.mode`, and cloud-only or on-premise-only commands refuse the other kind of directory.
 * All through the real binary.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { exitCodeOf } from '../../cli/run.js'
import { openStore } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'
import { freePort, startServer } from '../helpers/server.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

const PASSWORD = 'correct horse battery staple\n'

async function json(dataDir: string, args: string[], env: Record<string, string> = {}, input?: string) {
  const result = await runCli([...args, '--data-dir', dataDir, '--json'], env, input === undefined ? {} : { input })
  return { exitCode: result.exitCode, body: JSON.parse(result.stdout || 'null') as Record<string, unknown>, stderr: result.stderr }
}

async function serveOnce(dataDir: string, env: Record<string, string> = {}, args: string[] = []) {
  const server = await startServer(dataDir, env, undefined, { args: ['--workers', '1', ...args] })
  server.process.kill('SIGTERM')
  expect((await server.process).exitCode).toBe(0)
}

describe('the mode of a data directory', () => {
  it('is recorded by serve and used by commands told no mode', async () => {
    const dataDir = await tmpDataDir()
    await serveOnce(dataDir, { LECTERN_MODE: 'cloud' })

    const mode = await json(dataDir, ['config', 'get', 'mode'])
    expect(mode.body).toEqual([expect.objectContaining({ name: 'mode', value: 'cloud', source: 'data directory (install.mode)' })])
    expect((await json(dataDir, ['config', 'get', 'install.mode'])).body).toEqual([expect.objectContaining({ value: 'cloud', source: 'stored' })])

    // Without LECTERN_MODE: a cloud user with a personal space, and teamspaces work.
    const alice = await json(dataDir, ['users', 'create', 'alice@example.com'], {}, PASSWORD)
    expect(alice.body).toMatchObject({ email: 'alice@example.com', personalTeam: { name: 'alice@example.com', plan: 'free' } })
    expect((await json(dataDir, ['teams', 'create', 'Acme', '--owner', 'alice@example.com', '--plan', 'pro'])).exitCode).toBe(0)

    // Library access control is on-premise only: forbidden, not a usage error.
    const access = await json(dataDir, ['libraries', 'access'])
    expect(access.exitCode).toBe(exitCodeOf('forbidden'))
    expect(access.body).toMatchObject({ error: 'forbidden', message: expect.stringContaining('runs in cloud mode') })

    // An explicit other mode is refused, naming where it came from, and changes nothing.
    const other = await json(dataDir, ['users', 'create', 'bob@example.com'], { LECTERN_MODE: 'onprem' }, PASSWORD)
    expect(other.exitCode).toBe(exitCodeOf('validation_error'))
    expect(other.body).toMatchObject({ error: 'validation_error', message: expect.stringContaining('set up in cloud mode and LECTERN_MODE asks for onprem mode') })
    const listed = await json(dataDir, ['teams', 'list'], { LECTERN_MODE: 'onprem' })
    expect(listed.body).toMatchObject({ error: 'validation_error', message: expect.stringContaining('LECTERN_MODE asks for onprem') })
    expect(listed.body.message).not.toContain('runs on-premise')
    const yaml = path.join(await tmpDir(), 'lectern.yaml')
    await writeFile(yaml, 'mode: onprem\n')
    expect((await json(dataDir, ['teams', 'list', '--config', yaml])).body).toMatchObject({ message: expect.stringContaining(`mode in ${yaml} asks for onprem`) })
    const users = await json(dataDir, ['users', 'list'])
    expect(JSON.stringify(users.body)).not.toContain('bob@example.com')
    // The same mode said explicitly is no conflict.
    expect((await json(dataDir, ['teams', 'list'], { LECTERN_MODE: 'cloud' })).exitCode).toBe(0)
  })

  it('refuses serve in another mode until switched deliberately', async () => {
    const dataDir = await tmpDataDir()
    await serveOnce(dataDir)
    expect((await json(dataDir, ['config', 'get', 'install.mode'])).body).toEqual([expect.objectContaining({ value: 'onprem' })])

    const port = await freePort()
    const refused = await runCli(['serve', '--mode', 'cloud', '--workers', '1', '--port', String(port), '--data-dir', dataDir])
    expect(refused.exitCode).toBe(exitCodeOf('validation_error'))
    const said = refused.stderr.replace(/\s+/g, ' ')
    expect(said).toContain('set up in onprem mode and --mode asks for cloud mode')
    expect(said).toContain('stop the server and run `lectern config set install.mode cloud`')
    // The refusal changed nothing: the directory is still on-premise.
    expect((await json(dataDir, ['config', 'get', 'mode'])).body).toEqual([expect.objectContaining({ value: 'onprem' })])

    expect((await json(dataDir, ['config', 'set', 'install.mode', 'cloud'])).exitCode).toBe(0)
    await serveOnce(dataDir, {}, ['--mode', 'cloud'])
    expect((await json(dataDir, ['config', 'get', 'mode'])).body).toEqual([expect.objectContaining({ value: 'cloud', source: 'data directory (install.mode)' })])
    expect((await json(dataDir, ['config', 'set', 'install.mode', 'hybrid'])).body).toMatchObject({ error: 'validation_error', message: expect.stringContaining('onprem or cloud') })
  })

  it('refuses teamspaces on an on-premise data directory', async () => {
    const dataDir = await tmpDataDir()
    await serveOnce(dataDir)
    expect((await json(dataDir, ['users', 'create', 'alice@example.com'], {}, PASSWORD)).body).toMatchObject({ personalTeam: null })
    for (const args of [['teams', 'create', 'Acme', '--owner', 'alice@example.com', '--plan', 'pro'], ['teams', 'list'], ['teams', 'plan', 'set', 'alice@example.com', 'pro'], ['keys', 'create', '--name', 'k', '--user', 'alice@example.com', '--team', 'Acme']]) {
      const result = await json(dataDir, args)
      expect(result.exitCode, args.join(' ')).toBe(exitCodeOf('forbidden'))
      expect(result.body).toMatchObject({ error: 'forbidden', message: expect.stringContaining('Teamspaces are a cloud feature') })
      expect(result.body.message).toContain('LECTERN_MODE=cloud')
    }
    expect((await json(dataDir, ['libraries', 'access'])).exitCode).toBe(0)
  })

  it('refuses serve in another mode before its worker runs a queued job, with one process or several', async () => {
    const dataDir = await tmpDataDir()
    await serveOnce(dataDir, { LECTERN_MODE: 'cloud' })
    const queued = await runCli(['add', 'llmstxt', 'http://127.0.0.1:9/llms.txt', '--data-dir', dataDir])
    expect(queued.exitCode, queued.stderr).toBe(0)

    for (const workers of ['1', '2']) {
      const refused = await runCli(['serve', '--mode', 'onprem', '--workers', workers, '--port', String(await freePort()), '--data-dir', dataDir])
      expect(refused.exitCode, workers).toBe(exitCodeOf('validation_error'))
      expect(refused.stderr.replace(/\s+/g, ' ')).toContain('set up in cloud mode and --mode asks for onprem mode')
    }
    const store = await openStore(dataDir)
    try {
      const jobs = await store.jobs.list({})
      expect(jobs).toHaveLength(1)
      expect(jobs[0]).toMatchObject({ state: 'queued', startedAt: null })
    } finally {
      await store.close()
    }
  })

  it('is recorded by a command that writes when told a mode, and not by one that reads', async () => {
    const read = await tmpDataDir()
    expect((await json(read, ['users', 'create', 'carol@example.com'], {}, PASSWORD)).exitCode).toBe(0)
    expect((await json(read, ['users', 'list'], { LECTERN_MODE: 'cloud' })).exitCode).toBe(0)
    // A refused command that writes records nothing either.
    expect((await json(read, ['teams', 'create', 'Acme', '--owner', 'carol@example.com', '--plan', 'pro'], { LECTERN_MODE: 'onprem' })).body).toMatchObject({ error: 'forbidden' })
    expect((await json(read, ['config', 'get', 'install.mode'])).body).toEqual([expect.objectContaining({ value: '' })])

    const dataDir = await tmpDataDir()
    const alice = await json(dataDir, ['users', 'create', 'alice@example.com'], { LECTERN_MODE: 'cloud' }, PASSWORD)
    expect(alice.body).toMatchObject({ personalTeam: { plan: 'free' } })
    expect((await json(dataDir, ['config', 'get', 'install.mode'])).body).toEqual([expect.objectContaining({ value: 'cloud' })])
    // A plain serve now runs it in cloud mode rather than recording on-premise.
    await serveOnce(dataDir)
    expect((await json(dataDir, ['config', 'get', 'mode'])).body).toEqual([expect.objectContaining({ value: 'cloud', source: 'data directory (install.mode)' })])
  })

  it('refuses switching install.mode while a server holds the data directory', async () => {
    const dataDir = await tmpDataDir()
    const server = await startServer(dataDir, {}, undefined, { args: ['--workers', '1'] })
    const refused = await json(dataDir, ['config', 'set', 'install.mode', 'cloud'])
    expect(refused.exitCode).toBe(exitCodeOf('data_dir_locked'))
    expect(refused.body).toMatchObject({ error: 'data_dir_locked', message: expect.stringContaining('Switching install.mode needs the server stopped') })
    server.process.kill('SIGTERM')
    expect((await server.process).exitCode).toBe(0)
    expect((await json(dataDir, ['config', 'get', 'install.mode'])).body).toEqual([expect.objectContaining({ value: 'onprem' })])
    // A switch under an explicit mode other than the recorded one is what the switch is for.
    expect((await json(dataDir, ['config', 'set', 'install.mode', 'cloud'], { LECTERN_MODE: 'cloud' })).exitCode).toBe(0)
    expect((await json(dataDir, ['config', 'get', 'install.mode'])).body).toEqual([expect.objectContaining({ value: 'cloud' })])
  })
})
