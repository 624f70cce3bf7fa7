/**
 * The mode is a property of the data directory: the first `lectern serve` records it, commands
 * told no mode run in it, `serve` refuses another one unless switched with `lectern config set
 * install.mode`, and cloud-only or on-premise-only commands refuse the other kind of directory.
 * All through the real binary.
 */
import { describe, expect, it, vi } from 'vitest'
import { exitCodeOf } from '../../cli/run.js'
import { runCli } from '../helpers/cli.js'
import { freePort, startServer } from '../helpers/server.js'
import { tmpDataDir } from '../helpers/tmp.js'

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

    // An explicit mode still wins over the recorded one.
    expect((await json(dataDir, ['teams', 'list'], { LECTERN_MODE: 'onprem' })).body).toMatchObject({ error: 'forbidden' })
  })

  it('refuses serve in another mode until switched deliberately', async () => {
    const dataDir = await tmpDataDir()
    await serveOnce(dataDir)
    expect((await json(dataDir, ['config', 'get', 'install.mode'])).body).toEqual([expect.objectContaining({ value: 'onprem' })])

    const port = await freePort()
    const refused = await runCli(['serve', '--mode', 'cloud', '--workers', '1', '--port', String(port), '--data-dir', dataDir])
    expect(refused.exitCode).toBe(exitCodeOf('validation_error'))
    const said = refused.stderr.replace(/\s+/g, ' ')
    expect(said).toContain('set up in onprem mode and is being started in cloud mode')
    expect(said).toContain('lectern config set install.mode cloud')
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
    for (const args of [['teams', 'create', 'Acme', '--owner', 'alice@example.com', '--plan', 'pro'], ['teams', 'list'], ['teams', 'plan', 'set', 'alice@example.com', 'pro']]) {
      const result = await json(dataDir, args)
      expect(result.exitCode, args.join(' ')).toBe(exitCodeOf('forbidden'))
      expect(result.body).toMatchObject({ error: 'forbidden', message: expect.stringContaining('LECTERN_MODE=cloud') })
    }
    expect((await json(dataDir, ['libraries', 'access'])).exitCode).toBe(0)
  })
})
