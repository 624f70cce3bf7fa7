/**
 * lectern.yaml and the precedence of start-up settings, as `lectern config get` reports them and
 * `lectern serve` applies them: flag > environment > file > default; the file named by --config
 * or LECTERN_CONFIG, else ./lectern.yaml; unknown and secret-looking keys refused; a relative
 * dataDir resolved against the file's directory.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { freePort, GRACEFUL_STOP } from '../helpers/server.js'
import { initDataDir, tmpDataDir, tmpDir } from '../helpers/tmp.js'

// Each case starts several processes; a loaded two-core machine takes seconds for each.
vi.setConfig({ testTimeout: 420_000 })

interface Row {
  name: string
  value: unknown
  source: string
}

async function dataDirWithData(): Promise<string> {
  const dataDir = await tmpDataDir()
  expect((await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dataDir])).exitCode).toBe(0)
  return dataDir
}

async function configGet(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Record<string, Row>> {
  const result = await runCli(['config', 'get', '--json', ...args], env, { cwd })
  expect(result.exitCode, result.stderr).toBe(0)
  return Object.fromEntries((JSON.parse(result.stdout) as Row[]).map((r) => [r.name, r]))
}

describe('start-up settings precedence', () => {
  it('takes each setting from the flag, else the environment, else lectern.yaml, else its default, and says which', async () => {
    const dataDir = await dataDirWithData()
    const dir = await tmpDir()
    const file = path.join(dir, 'lectern.yaml')
    await writeFile(file, 'log:\n  level: warn\nserver:\n  port: 4000\n  host: 0.0.0.0\nrateLimit:\n  keyed: 5\n')
    const rows = await configGet(['--config', file, '--data-dir', dataDir], { LECTERN_LOG_LEVEL: 'debug', LECTERN_HOST: '127.0.0.2' })
    expect(rows.dataDir).toMatchObject({ value: dataDir, source: 'flag --data-dir' })
    expect(rows['log.level']).toMatchObject({ value: 'debug', source: 'env LECTERN_LOG_LEVEL' })
    expect(rows['server.host']).toMatchObject({ value: '127.0.0.2', source: 'env LECTERN_HOST' })
    expect(rows['server.port']).toMatchObject({ value: 4000, source: `file ${file}` })
    expect(rows['rateLimit.keyed']).toMatchObject({ value: 5, source: `file ${file}` })
    expect(rows['rateLimit.anonymous']).toMatchObject({ value: 60, source: 'default' })
    expect(rows.embedding).toMatchObject({ value: { provider: 'hash' }, source: 'default' })
  })

  it('resolves dataDir flag > LECTERN_DATA_DIR > file, a relative dataDir in the file against the file\'s directory', async () => {
    const configDir = await tmpDir()
    const fileDir = await initDataDir(path.join(configDir, 'data'))
    const [flagDir, envDir] = await Promise.all([dataDirWithData(), dataDirWithData(), runCli(['keys', 'create', '--name', 'ci', '--data-dir', fileDir])])
    const file = path.join(configDir, 'lectern.yaml')
    await writeFile(file, 'dataDir: ./data\n')
    const elsewhere = await tmpDir()

    const [flag, env, named, local] = await Promise.all([
      configGet(['--config', file, '--data-dir', flagDir as string], { LECTERN_DATA_DIR: envDir as string }, elsewhere),
      configGet(['--config', file], { LECTERN_DATA_DIR: envDir as string }, elsewhere),
      configGet([], { LECTERN_CONFIG: file }, elsewhere),
      // ./lectern.yaml of the working directory is read without being named.
      configGet([], {}, configDir),
    ])
    expect(flag.dataDir).toMatchObject({ value: flagDir, source: 'flag --data-dir' })
    expect(env.dataDir).toMatchObject({ value: envDir, source: 'env LECTERN_DATA_DIR' })
    expect(named.dataDir).toMatchObject({ value: fileDir, source: `file ${file}` })
    expect(local.dataDir).toMatchObject({ value: fileDir, source: `file ${file}` })
  })
})

describe('lectern.yaml checks', () => {
  it('refuses an unknown key, naming it and the known ones', async () => {
    const dir = await tmpDir()
    await writeFile(path.join(dir, 'lectern.yaml'), 'server:\n  prot: 8080\n')
    const result = await runCli(['config', 'get', '--data-dir', await dataDirWithData()], {}, { cwd: dir })
    expect(result.exitCode).toBe(2)
    const message = result.stderr.replace(/\s+/g, ' ')
    expect(message).toContain('unknown setting "server.prot"')
    expect(message).toContain('server.port')
  })

  it('refuses a secret-looking key, and says where secrets go', async () => {
    const dir = await tmpDir()
    const file = path.join(dir, 'lectern.yaml')
    await writeFile(file, 'backup:\n  s3:\n    secretAccessKey: wJalrXUtnFEMI\n')
    const result = await runCli(['config', 'get', '--json', '--config', file, '--data-dir', await dataDirWithData()])
    expect(result.exitCode).toBe(2)
    const body = JSON.parse(result.stdout) as { error: string; message: string }
    expect(body.error).toBe('validation_error')
    expect(body.message).toContain('"backup.s3.secretAccessKey" looks like a secret')
    expect(body.message).not.toContain('wJalrXUtnFEMI')
    // A secret whose home is known is sent there.
    await writeFile(file, 'sso:\n  clientSecret: s3cr3t-value\n')
    const sso = await runCli(['config', 'get', '--json', '--config', file, '--data-dir', await dataDirWithData()])
    expect(JSON.parse(sso.stdout).message).toBe(`${file}: "sso.clientSecret" looks like a secret; secrets never go in the configuration file. Use LECTERN_SSO_CLIENT_SECRET, or the dashboard's Settings > Single sign-on (which seals it).`)
  })

  it('refuses a bad value, naming the setting and the file', async () => {
    const dir = await tmpDir()
    const file = path.join(dir, 'lectern.yaml')
    await writeFile(file, 'server:\n  port: eighty\n')
    const result = await runCli(['config', 'get', '--config', file, '--data-dir', await dataDirWithData()])
    expect(result.exitCode).toBe(2)
    expect(result.stderr.replace(/\s+/g, ' ')).toContain(`Invalid setting server.port (from server.port in ${file})`)
  })

  it('refuses a trustProxy that is not addresses/CIDRs, a hop count or true/false, from the flag, the environment or the file', async () => {
    const dataDir = await dataDirWithData()
    const file = path.join(await tmpDir(), 'lectern.yaml')
    await writeFile(file, 'server:\n  trustProxy: "999.1.1.1"\n')
    const refused = (result: { exitCode: number; stdout: string; stderr: string }) => {
      expect(result.exitCode, result.stderr).toBe(2)
      return result.stdout ? (JSON.parse(result.stdout) as { error: string; message: string }) : { error: /\((\w+)\)$/.exec(result.stderr)?.[1], message: result.stderr }
    }
    for (const value of ['garbage', '999.1.1.1', '127.0.0.1/99', '-1']) {
      const serve = refused(await runCli(['serve', '--trust-proxy', value, '--port', '0', '--data-dir', dataDir]))
      expect(serve.error).toBe('validation_error')
      expect(serve.message).toContain('Invalid setting server.trustProxy (from --trust-proxy)')
    }
    const env = refused(await runCli(['config', 'get', '--json', '--data-dir', dataDir], { LECTERN_TRUST_PROXY: 'garbage' }))
    expect(env).toEqual({ error: 'validation_error', message: expect.stringContaining('Invalid setting server.trustProxy (from LECTERN_TRUST_PROXY): "garbage" is not an IP address or CIDR') })
    const fromFile = refused(await runCli(['config', 'get', '--json', '--config', file, '--data-dir', dataDir]))
    expect(fromFile).toEqual({ error: 'validation_error', message: expect.stringContaining(`Invalid setting server.trustProxy (from server.trustProxy in ${file}): "999.1.1.1"`) })
    const hops = refused(await runCli(['serve', '--data-dir', dataDir], { LECTERN_TRUST_PROXY: '-1' }))
    expect(hops.message).toContain('a hop count must be 0 or more, not -1')

    const accepted = await configGet(['--data-dir', dataDir], { LECTERN_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8, ::1' })
    expect(accepted['server.trustProxy']).toMatchObject({ value: ['127.0.0.1', '10.0.0.0/8', '::1'], source: 'env LECTERN_TRUST_PROXY' })
    expect((await configGet(['--data-dir', dataDir], { LECTERN_TRUST_PROXY: '2' }))['server.trustProxy']).toMatchObject({ value: 2 })
  })

  it('refuses a --config file that does not exist', async () => {
    const missing = path.join(await tmpDir(), 'nope.yaml')
    const result = await runCli(['config', 'get', '--config', missing, '--data-dir', await dataDirWithData()])
    expect(result.exitCode).toBe(2)
    expect(result.stderr.replace(/\s+/g, ' ')).toContain(`Cannot read the configuration file ${missing}`)
  })
})

describe('lectern serve on a port in use', () => {
  it('says which port is taken and what to do: validation_error, exit 2', async () => {
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => taken.close(() => resolve())))
    const port = (taken.address() as net.AddressInfo).port
    const result = await runCli(['serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', await dataDirWithData()])
    expect(result.exitCode, result.stderr).toBe(2)
    const stderr = result.stderr.replace(/\s+/g, ' ')
    expect(stderr).toContain(`port ${port} on 127.0.0.1 is already in use: stop the other process or choose another --port.`)
    expect(stderr).toMatch(/\(validation_error\)$/)
    expect(stderr).not.toContain('EADDRINUSE')
  })
})

describe('lectern serve --config', () => {
  it('listens on the host and port of the file, its data directory relative to the file, and a flag still wins', async () => {
    const dir = await tmpDir()
    await mkdir(path.join(dir, 'data'))
    const [filePort, flagPort] = [await freePort(), await freePort()]
    const file = path.join(dir, 'lectern.yaml')
    await writeFile(file, `dataDir: ./data\nserver:\n  host: 127.0.0.1\n  port: ${filePort}\nlog:\n  level: warn\n`)

    const serve = (args: string[]) => {
      const child = execa('node', [path.join(PROJECT_ROOT, 'bin/run.js'), 'serve', '--config', file, ...args], { cwd: PROJECT_ROOT, reject: false, stdin: 'ignore', ...GRACEFUL_STOP })
      onTestFinished(async () => {
        child.kill('SIGTERM')
        await child
      })
      return child
    }
    const ready = (port: number) => pollUntil(`port ${port}`, async () => ((await fetch(`http://127.0.0.1:${port}/api/ready`).catch(() => undefined))?.ok ? true : undefined), 60_000)

    const fromFile = serve([])
    await ready(filePort)
    fromFile.kill('SIGTERM')
    expect((await fromFile).exitCode).toBe(0)
    // The database went where the file said: beside it, not in the working directory.
    expect((await configGet(['--config', file])).dataDir).toMatchObject({ value: path.join(dir, 'data') })

    void serve(['--port', String(flagPort)])
    await ready(flagPort)
    expect(await fetch(`http://127.0.0.1:${filePort}/api/ready`).then(() => 'answered', () => 'refused')).toBe('refused')
  })
})
