/**
 * The logs of the real `lectern serve` (dist/), as an operator reads them: JSON lines when stdout
 * is a pipe, pino-pretty's lines on a terminal (a pseudo-terminal from `script`), the version at
 * start and a stopped line after SIGTERM, probes only at debug, and every line of a job, from
 * the worker thread, naming its library.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { execa } from 'execa'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../src/store/index.js'
import { APP_VERSION } from '../../src/install/version.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { pollUntil } from '../helpers/poll.js'
import { freePort, startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

// Real server processes on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 })

const defer = suiteTeardown()
let serverEnv: Record<string, string>

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(
    {
      'README.md': '# Thing\n\n## Install\n\nRun `npm install thing` to install the thing.\n\n```js\nthing.start()\n```\n',
      // Read by the git job, which logs that it ignored it: a line of the job's handler.
      'context7.json': '{ not json',
    },
    { parent: remotes, name: 'thing' },
  )
  serverEnv = { ...gitRedirectEnv(remotes), LECTERN_RATE_LIMIT_ANONYMOUS: '0', LECTERN_RATE_LIMIT_KEYED: '0' }
})

type Line = Record<string, unknown> & { msg: string; level: number; time: number }

/** SIGTERM, then every line the server wrote to stdout, each parsed as JSON (a line that is not JSON fails). */
async function stopAndReadLines(server: ServerProcess): Promise<Line[]> {
  server.process.kill('SIGTERM')
  const { exitCode, stdout } = await server.process
  expect(exitCode).toBe(0)
  return String(stdout)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Line)
}

const urlOf = (line: Line) => (line.req as { url?: string } | undefined)?.url

async function get(server: ServerProcess, path: string): Promise<number> {
  const res = await fetch(`${server.url}${path}`)
  await res.arrayBuffer()
  return res.status
}

describe('server logs', () => {
  it('on a pipe: JSON lines, the version first, job lines naming the library, no probe at info, a stopped line last', async () => {
    const dataDir = await tmpDataDir()
    const server = await startServer(dataDir, serverEnv, defer, { logLevel: 'info' })
    const readyAt = Date.now()
    const store = await openStore(dataDir)
    const { key } = await store.keys.create('logs-test')
    await store.close()
    for (const probe of ['/api/health', '/api/ready', '/ping']) expect(await get(server, probe)).toBe(200)
    const add = await fetch(`${server.url}/api/v2/add/repo/github`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docsRepoUrl: 'https://github.com/acme/thing' }),
    })
    expect(add.status, await add.text()).toBe(200)
    await pollUntil('/acme/thing to finalize', async () => {
      const res = await fetch(`${server.url}/api/v2/libs/search?libraryName=/acme/thing`)
      const { results } = (await res.json()) as { results: Array<{ state: string }> }
      return results[0]?.state === 'finalized' ? true : undefined
    }, 60_000)

    const lines = await stopAndReadLines(server)
    expect(lines[0]).toMatchObject({ msg: `Lectern ${APP_VERSION} starting`, version: APP_VERSION, dataDir })
    expect(lines.at(-1)).toMatchObject({ msg: 'Lectern stopped' })
    // Readiness waited for the job process: its start was logged before /api/ready said 200.
    const jobsStarted = lines.find((l) => l.msg === 'job process started')
    expect(jobsStarted).toBeDefined()
    expect(jobsStarted!.time).toBeLessThanOrEqual(readyAt)

    expect(lines.filter((l) => ['/api/health', '/api/ready', '/ping'].includes(urlOf(l) ?? ''))).toEqual([])
    expect(lines.filter((l) => urlOf(l) === '/api/v2/add/repo/github').map((l) => [l.msg, l.level])).toEqual([['request completed', 30]])

    const jobLines = lines.filter((l) => l.jobId !== undefined)
    expect(jobLines.map((l) => l.msg)).toEqual(expect.arrayContaining(['job started', 'job succeeded', expect.stringMatching(/^context7\.json ignored: not valid JSON/)]))
    for (const line of jobLines) expect(line, line.msg).toMatchObject({ libraryId: '/acme/thing', kind: 'ingest' })
  })

  it('at debug: probe requests are logged, at debug level', async () => {
    const server = await startServer(await tmpDataDir(), serverEnv, defer, { logLevel: 'debug' })
    expect(await get(server, '/api/health')).toBe(200)
    const lines = await stopAndReadLines(server)
    const probe = lines.filter((l) => urlOf(l) === '/api/health')
    // At debug every request's arrival is logged too, probes' lines included.
    expect(probe.map((l) => [l.msg, l.level])).toEqual([['incoming request', 20], ['request completed', 20]])
    expect(probe[1].reqId).toBe(probe[0].reqId)
  })

  it("in cloud mode: request lines keep the path and parameter names but no question; on-premise the whole URL", async () => {
    const asked = [
      '/api/v2/context?libraryId=/acme/thing&query=how+do+I+rotate+the+ACME+payroll+keys&type=json',
      '/api/v2/libs/search?libraryName=acme-payroll-internal&query=rotate%20keys',
      '/api/v1/acme/thing?topic=payroll%20secrets&tokens=500',
      '/api/v2/context?libraryId=/acme/thing&Query=payroll+again',
    ]
    const logsOf = async (mode: string) => {
      const server = await startServer(await tmpDataDir(), serverEnv, defer, { logLevel: 'info', args: ['--mode', mode] })
      for (const url of asked) await get(server, url)
      return stopAndReadLines(server)
    }

    // A request's line is written when its response has gone out, which may be after the client
    // read it and sent the next: the lines are compared in any order.
    const completedUrls = (lines: Line[]) => lines.filter((l) => l.msg === 'request completed').map(urlOf).sort()
    const cloud = await logsOf('cloud')
    expect(completedUrls(cloud)).toEqual([
      '/api/v2/context?libraryId=/acme/thing&query=[redacted]&type=json',
      '/api/v2/libs/search?libraryName=[redacted]&query=[redacted]',
      '/api/v1/acme/thing?topic=[redacted]&tokens=500',
      '/api/v2/context?libraryId=/acme/thing&Query=[redacted]',
    ].sort())
    // The caller's address is kept, for the operator's abuse handling; no question is anywhere.
    expect(cloud.find((l) => l.msg === 'request completed')).toMatchObject({ req: { remoteAddress: '127.0.0.1' } })
    expect(JSON.stringify(cloud)).not.toMatch(/payroll|rotate/i)

    const onprem = await logsOf('onprem')
    expect(completedUrls(onprem)).toEqual([...asked].sort())
  })

  it('on a terminal: pretty lines and the setup token, unless --log-format json', async () => {
    const { output: pretty, dataDir } = await serveOnTerminal([])
    // A fresh install: a person at the terminal is shown the setup token, which is also in its file.
    const token = readFileSync(path.join(dataDir, 'setup-token'), 'utf8').trim()
    expect(pretty).toContain(`Setup token: ${token}`)
    expect(pretty).toContain('No admin yet: open http://127.0.0.1:')
    expect(pretty).toContain(`INFO`)
    expect(pretty).toContain(`Lectern ${APP_VERSION} starting`)
    expect(pretty).toContain('Lectern stopped')
    expect(pretty.split(/\r?\n/).filter((l) => l.startsWith('{'))).toEqual([])
    // A request is one line, as in an access log: method, URL, status, time, request ID and address.
    const plain = stripVTControlCharacters(pretty)
    expect(plain).toMatch(/INFO: (\[worker \d+\] )?request completed GET \/api\/v2\/libs\/search\?libraryName=widgets 404 \d+\.\d ms \([\w-]+, 127\.0\.0\.1\)\r?\n/)
    expect(plain).not.toMatch(/^\s+(req|res): \{/m)

    const { output: json } = await serveOnTerminal(['--log-format', 'json'])
    const lines = json.split(/\r?\n/).filter((l) => l.trim() !== '')
    expect(lines.length).toBeGreaterThan(2)
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
    expect(lines.map((l) => (JSON.parse(l) as Line).msg)).toEqual(expect.arrayContaining([`Lectern ${APP_VERSION} starting`, 'Lectern stopped']))
  })
})

/**
 * Runs `lectern serve` under a pseudo-terminal (`script`), waits until ready, stops it with
 * SIGTERM (sent to the server itself: script's child, which `exec` made the server) and returns
 * what the terminal showed.
 */
async function serveOnTerminal(args: string[]): Promise<{ output: string; dataDir: string }> {
  const dataDir = await tmpDataDir()
  const port = await freePort()
  const command = ['exec', 'node', 'bin/run.js', 'serve', '--data-dir', dataDir, '--port', String(port), ...args].join(' ')
  const script = execa('script', ['-qec', command, '/dev/null'], { cwd: PROJECT_ROOT, stdin: 'ignore', reject: false, env: serverEnv })
  defer(async () => {
    if (script.exitCode === null) script.kill('SIGKILL')
    await script
  })
  await pollUntil('the server under a terminal to be ready', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/ready`).catch(() => undefined)
    return res?.status === 200 ? true : undefined
  }, 60_000)
  // No library yet: answered 404, a request like any other.
  expect((await fetch(`http://127.0.0.1:${port}/api/v2/libs/search?libraryName=widgets`)).status).toBe(404)
  const serverPid = Number(readFileSync(`/proc/${script.pid}/task/${script.pid}/children`, 'utf8').trim())
  process.kill(serverPid, 'SIGTERM')
  const { exitCode, stdout } = await script
  expect(exitCode).toBe(0)
  return { output: String(stdout), dataDir }
}
