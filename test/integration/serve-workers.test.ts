/**
 * `lectern serve --workers N`: the real binary with two worker processes behind one port. Which
 * process answered is read from the server's own log (each response's x-request-id names its
 * `request completed` line, which names its `worker`), and the processes from /proc, so the
 * API gains no debug surface. Requests go out on a new connection each: cluster hands out
 * connections, not requests, round-robin, so consecutive ones reach the workers in turn.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { STOP_GRACE_MS } from '../../src/jobs/job-process.js'
import { openStore } from '../../src/store/index.js'
import { runCli, type CliEnv } from '../helpers/cli.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { serveOnLoopback } from '../helpers/loopback-server.js'
import { pollUntil } from '../helpers/poll.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { collectLog, send, workerOf, type Answer, type Line, type Sent } from '../helpers/workers.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { inspect } from '../helpers/inspect-db.js'

// Real server processes (three each) and CLI runs on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const defer = suiteTeardown()
const PASSWORD = 'correct horse battery staple'
/** The keyed limit of the shared server; anonymous requests are not limited. */
const KEYED_LIMIT = 12

class Served {
  constructor(
    readonly server: ServerProcess,
    readonly lines: Line[],
  ) {}

  /** The worker whose log completed this response's request. */
  workerOf(answer: Answer): Promise<number> {
    return workerOf(this.lines, answer)
  }

  /** `count` requests one after another, each on a new connection, with the worker that answered each. */
  async batch(count: number, path: string, sent: Sent = {}): Promise<Array<Answer & { worker: number }>> {
    const answers: Answer[] = []
    for (let i = 0; i < count; i++) answers.push(await send(`${this.server.url}${path}`, sent))
    return Promise.all(answers.map(async (answer) => ({ ...answer, worker: await this.workerOf(answer) })))
  }

  /**
   * Batches until every answer passes `test`; fails unless the batch that passed was sent
   * within `withinMs` of `since` (its own duration and the log lookups do not count).
   */
  async allWithin(test: (answer: Answer) => boolean, path: string, sent: Sent, since: number, withinMs: number): Promise<Array<Answer & { worker: number }>> {
    const { answers, sentAt } = await pollUntil(`every worker to answer as expected on ${path}`, async () => {
      const sentAt = Date.now()
      const answers = await this.batch(4, path, sent)
      return answers.every(test) ? { answers, sentAt } : undefined
    }, 10_000)
    expect(sentAt - since).toBeLessThan(withinMs)
    return answers
  }

  get pid(): number {
    return this.server.process.pid!
  }

  /** The primary's child processes, from /proc. */
  children(): number[] {
    return readFileSync(`/proc/${this.pid}/task/${this.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  }

  /** The pid of worker `n` as its latest log line says. */
  pidOfWorker(n: number): number {
    return this.lines.findLast((l) => l.worker === n)!.pid as number
  }
}

const hasStatus = (status: number) => (answer: Answer) => answer.status === status
const workersOf = (answers: Array<{ worker: number }>) => [...new Set(answers.map((a) => a.worker))].sort()

async function startWorkers(dataDir: string, env: Record<string, string>, args: string[] = [], options: { cpus?: number; logLevel?: 'info' | 'debug' } = {}): Promise<Served> {
  const server = await startServer(dataDir, env, defer, { logLevel: options.logLevel ?? 'info', args: ['--workers', '2', ...args], ...(options.cpus === undefined ? {} : { cpus: options.cpus }) })
  return new Served(server, collectLog(server))
}

describe('lectern serve --workers 2', () => {
  let dataDir: string
  let served: Served
  let submitKey: string
  let embeddingRequests = 0
  let embeddingsHost: string

  beforeAll(async () => {
    const remotes = await tmpDir('lectern-remotes-', defer)
    await makeGitRepo(
      {
        'README.md': '# Thing\n\n## Install\n\nRun `npm install thing` to install the thing.\n\n```js\nthing.start()\n```\n',
        'docs/usage.md': '# Usage\n\n## Start the thing\n\nCall start to begin.\n\n```js\nthing.start({ port: 8080 })\n```\n',
      },
      { parent: remotes, name: 'thing' },
    )
    dataDir = await tmpDataDir(defer)
    const store = await openStore(dataDir)
    submitKey = (await store.keys.create('submit')).key
    await store.users.create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' })
    await store.close()
    served = await startWorkers(dataDir, { ...gitRedirectEnv(remotes), LECTERN_RATE_LIMIT_ANONYMOUS: '0', LECTERN_RATE_LIMIT_KEYED: String(KEYED_LIMIT) }, ['--rate-limit-window', '86400'])
  })

  it('serves from two processes and runs a submitted library\'s job once, in worker 1', async () => {
    expect(served.children()).toHaveLength(2)
    const add = await send(`${served.server.url}/api/v2/add/repo/github`, {
      method: 'POST',
      headers: { authorization: `Bearer ${submitKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docsRepoUrl: 'https://github.com/acme/thing' }),
    })
    expect(add.status, add.body).toBe(200)
    await pollUntil('/acme/thing to finalize', async () => {
      const { body } = await send(`${served.server.url}/api/v2/libs/search?libraryName=/acme/thing`)
      return (JSON.parse(body) as { results: Array<{ state: string }> }).results[0]?.state === 'finalized' ? true : undefined
    }, 60_000)

    const answers = await served.batch(6, '/api/v2/context?libraryId=/acme/thing&query=install')
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200])
    expect(workersOf(answers)).toEqual([1, 2])

    expect(inspect(dataDir, (db) => db.prepare('SELECT kind, state, attempts FROM jobs').all())).toEqual([{ kind: 'ingest', state: 'succeeded', attempts: 1 }])
    const started = served.lines.filter((l) => l.msg === 'job started')
    expect(started.map((l) => l.worker)).toEqual([1])
    // Every line of the server says which process wrote it: 0 the primary, 1 and 2 the workers.
    expect(served.lines.every((l) => [0, 1, 2].includes(l.worker as number))).toBe(true)
  })

  it('after a re-embedding in worker 1, every worker searches the new vectors (the set\'s cache is dropped everywhere)', async () => {
    embeddingsHost = await serveOnLoopback((req, res) => {
      let raw = ''
      req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')))
      req.on('end', () => {
        const { input } = JSON.parse(raw) as { input: string[] }
        embeddingRequests++
        res.writeHead(200, { 'content-type': 'application/json' })
        const data = input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length % 7, 1, (text.length % 3) + 1, 2] }))
        res.end(JSON.stringify({ object: 'list', model: 'm', data }))
      })
    })
    // Both workers have the hash-embedded vectors of the set in memory.
    expect(workersOf(await served.batch(4, '/api/v2/context?libraryId=/acme/thing&query=start+the+thing'))).toEqual([1, 2])
    const login = await send(`${served.server.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }) })
    const cookie = String(login.headers['set-cookie']).split(';')[0]
    const put = await send(`${served.server.url}/api/settings/embedding`, {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'openai', host: embeddingsHost, model: 'm' }),
    })
    expect(put.status, put.body).toBe(200)
    // Signed out on one worker, the session is refused by every worker.
    expect((await send(`${served.server.url}/api/auth/logout`, { method: 'POST', headers: { cookie } })).status).toBeLessThan(300)
    const signedOut = await served.batch(4, '/api/backup/status', { headers: { cookie } })
    expect(signedOut.map((a) => a.status)).toEqual([401, 401, 401, 401])
    expect(workersOf(signedOut)).toEqual([1, 2])
    await pollUntil('the re-embedding', () => (inspect(dataDir, (db) => db.prepare(`SELECT state FROM jobs WHERE kind = 'reembed'`).pluck().get()) === 'succeeded' ? true : undefined), 60_000)

    const before = embeddingRequests
    const answers = await served.batch(4, '/api/v2/context?libraryId=/acme/thing&query=start+the+thing')
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200])
    expect(workersOf(answers)).toEqual([1, 2])
    // Each question was embedded by the new provider and searched in the new index, on both workers.
    expect(embeddingRequests - before).toBe(4)
    expect(served.lines.filter((l) => l.msg.startsWith('vector search unavailable'))).toEqual([])
  })

  it('refuses a key revoked with the CLI on every worker within a second', async () => {
    const created = await runCli(['keys', 'create', '--name', 'doomed', '--json', '--data-dir', dataDir])
    const { id, key } = JSON.parse(created.stdout) as { id: number; key: string }
    const bearer = { headers: { authorization: `Bearer ${key}` } }
    const before = await served.batch(4, '/api/v2/libs/search?libraryName=thing', bearer)
    expect(before.map((a) => a.status)).toEqual([200, 200, 200, 200])
    expect(workersOf(before)).toEqual([1, 2])

    expect((await runCli(['keys', 'revoke', String(id), '--data-dir', dataDir])).exitCode).toBe(0)
    const after = await served.allWithin(hasStatus(401), '/api/v2/libs/search?libraryName=thing', bearer, Date.now(), 1000)
    expect(workersOf(after)).toEqual([1, 2])
    expect(JSON.parse(after[0].body)).toMatchObject({ error: 'invalid_api_key' })
  })

  it('applies a setting changed with the CLI on every worker within a second', async () => {
    const enabled = (answer: Answer) => (JSON.parse(answer.body) as { enabled: boolean }).enabled
    const before = await served.batch(4, '/api/auth/mcp')
    expect(before.map(enabled)).toEqual([false, false, false, false])
    expect(workersOf(before)).toEqual([1, 2])
    expect((await runCli(['config', 'set', 'mcp.requireKey', 'true', '--data-dir', dataDir])).exitCode).toBe(0)
    expect(workersOf(await served.allWithin(enabled, '/api/auth/mcp', {}, Date.now(), 1000))).toEqual([1, 2])
    const toolsList = {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }
    const refused = await served.batch(4, '/mcp', toolsList)
    expect(refused.map((a) => a.status)).toEqual([401, 401, 401, 401])
    expect(workersOf(refused)).toEqual([1, 2])
    expect((await runCli(['config', 'set', 'mcp.requireKey', 'false', '--data-dir', dataDir])).exitCode).toBe(0)
  })

  it('holds the keyed rate limit across the workers: N processes never grant N times the limit', async () => {
    const { stdout } = await runCli(['keys', 'create', '--name', 'limited', '--json', '--data-dir', dataDir])
    const bearer = { headers: { authorization: `Bearer ${(JSON.parse(stdout) as { key: string }).key}` } }
    const answers = await served.batch(2 * KEYED_LIMIT, '/api/v2/libs/search?libraryName=thing', bearer)
    const allowed = answers.filter((a) => a.status !== 429)
    expect(allowed).toHaveLength(KEYED_LIMIT)
    expect(workersOf(allowed)).toEqual([1, 2])
    // One count: what remains goes down by one per request, whichever worker answered.
    expect(allowed.map((a) => Number(a.headers['ratelimit-remaining']))).toEqual(Array.from({ length: KEYED_LIMIT }, (_, i) => KEYED_LIMIT - 1 - i))
    const refused = answers.filter((a) => a.status === 429)
    expect(workersOf(refused)).toEqual([1, 2])
    expect(JSON.parse(refused[0].body)).toMatchObject({ error: 'rate_limit_exceeded' })

    // All at once (each worker then asks for several requests in one message): the same count.
    const another = await runCli(['keys', 'create', '--name', 'burst', '--json', '--data-dir', dataDir])
    const burst = { authorization: `Bearer ${(JSON.parse(another.stdout) as { key: string }).key}` }
    const statuses = await Promise.all(Array.from({ length: 2 * KEYED_LIMIT }, () => send(`${served.server.url}/api/v2/libs/search?libraryName=thing`, { headers: burst })))
    expect(statuses.filter((a) => a.status !== 429)).toHaveLength(KEYED_LIMIT)
  })

  it('redirects a library renamed, and answers 404 for one removed, with the CLI on every worker within a second', async () => {
    const path = '/api/v2/context?libraryId=/acme/thing&query=install'
    const before = await served.batch(4, path)
    expect(before.map((a) => a.status)).toEqual([200, 200, 200, 200])
    expect((await runCli(['libraries', 'rename', '/acme/thing', '/acme/thing-core', '--data-dir', dataDir])).exitCode).toBe(0)
    const moved = await served.allWithin(hasStatus(301), path, {}, Date.now(), 1000)
    expect(workersOf(moved)).toEqual([1, 2])
    expect(JSON.parse(moved[0].body)).toMatchObject({ redirectUrl: expect.stringContaining('/acme/thing-core') })

    const renamedPath = '/api/v2/context?libraryId=/acme/thing-core&query=install'
    expect((await served.batch(4, renamedPath)).map((a) => a.status)).toEqual([200, 200, 200, 200])
    expect((await runCli(['libraries', 'remove', '/acme/thing-core', '--yes', '--data-dir', dataDir])).exitCode).toBe(0)
    const after = await served.allWithin(hasStatus(404), renamedPath, {}, Date.now(), 1000)
    expect(workersOf(after)).toEqual([1, 2])
    expect(JSON.parse(after[0].body)).toMatchObject({ error: 'library_not_found' })
  })

  it('starts a killed worker again, and the jobs again with worker 1', async () => {
    const [first, second] = [served.pidOfWorker(1), served.pidOfWorker(2)]
    expect(served.children().sort()).toEqual([first, second].sort())

    process.kill(second, 'SIGKILL')
    const replaced = await pollUntil('worker 2 to be started again', () => {
      const pid = served.lines.findLast((l) => l.worker === 2 && l.msg.startsWith('Server listening'))?.pid as number | undefined
      return pid !== undefined && pid !== second ? pid : undefined
    }, 30_000)
    expect(served.lines).toContainEqual(expect.objectContaining({ worker: 0, level: 40, msg: 'worker 2 exited; starting it again', exited: expect.objectContaining({ worker: 2, pid: second, signal: 'SIGKILL' }) }))

    process.kill(first, 'SIGKILL')
    await pollUntil('worker 1 and its job worker to be started again', () =>
      served.lines.some((l) => l.worker === 1 && l.pid !== first && l.msg === 'job process started') ? true : undefined,
    30_000)
    await pollUntil('readiness', async () => ((await send(`${served.server.url}/api/ready`)).status === 200 ? true : undefined))
    expect(served.children()).toHaveLength(2)
    expect(served.children()).toContain(replaced)
    expect(workersOf(await served.batch(4, '/api/v2/libs/search?libraryName=thing'))).toEqual([1, 2])
  })
})

describe('lectern serve --workers 2, stopping', () => {
  it('on SIGTERM finishes a request in flight, stops every worker and exits 0', async () => {
    // At debug a request's arrival is logged: the test knows the request is in flight.
    const served = await startWorkers(await tmpDataDir(), {}, [], { logLevel: 'debug' })
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    const half = Math.floor(body.length / 2)
    const answer = new Promise<Answer>((resolve, reject) => {
      const req = request(`${served.server.url}/mcp`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(body.length) },
      }, (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
      })
      req.on('error', reject)
      req.write(body.slice(0, half))
      // The rest of the body only once every worker is draining: the request is then in flight.
      void pollUntil('every worker to drain', () => (served.lines.filter((l) => l.msg === 'worker stopping: draining requests').length === 2 ? true : undefined))
        .then(() => req.end(body.slice(half)), reject)
    })
    await pollUntil('the request to arrive', () => (served.lines.some((l) => l.msg === 'incoming request') ? true : undefined))
    served.server.process.kill('SIGTERM')

    const res = await answer
    expect(res.status, res.body).toBe(200)
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { tools: expect.any(Array) } })
    const { exitCode } = await served.server.process
    expect(exitCode).toBe(0)
    expect(served.lines.filter((l) => l.msg === 'worker stopped').map((l) => l.worker).sort()).toEqual([1, 2])
    expect(served.lines.at(-1)).toMatchObject({ worker: 0, msg: 'Lectern stopped' })
  })
})

describe('lectern serve --workers 1', () => {
  it('serves from its own process, as without the flag on one CPU, its jobs in a child process at the lowest CPU priority', async () => {
    const server = await startServer(await tmpDataDir(), {}, defer, { logLevel: 'info', args: ['--workers', '1'] })
    const pid = server.process.pid!
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number)
    expect(children).toHaveLength(1)
    const [jobs] = children
    expect(readFileSync(`/proc/${jobs}/cmdline`, 'utf8')).toContain('lectern job process (')
    expect((await send(`${server.url}/api/v2/libs/search?libraryName=x`)).status).toBe(404)
    // Every thread of the job process runs at nice 19 so that requests come first; the server's keep 0.
    const nicesOf = (process: number) =>
      readdirSync(`/proc/${process}/task`).map((tid) => Number(readFileSync(`/proc/${process}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]))
    expect(new Set(nicesOf(pid))).toEqual(new Set([0]))
    expect(new Set(nicesOf(jobs))).toEqual(new Set([19]))
    server.process.kill('SIGTERM')
    const { exitCode, stdout } = await server.process
    expect(exitCode).toBe(0)
    expect(existsSync(`/proc/${jobs}`)).toBe(false)
    const lines = String(stdout).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line)
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['request completed', 'the job process runs at the lowest scheduling priority (nice 19): requests come first', 'job process started', 'Lectern stopped']))
    expect(lines.filter((l) => 'worker' in l)).toEqual([])
    expect(lines.filter((l) => l.msg.includes('CPU'))).toEqual([])
  })
})

describe('lectern serve --workers 1 killed outright, or its job process hung', () => {
  it('takes its job process with it: the job process ends when its channel to the server closes', async () => {
    const server = await startServer(await tmpDataDir(), {}, defer, { args: ['--workers', '1'] })
    const pid = server.process.pid!
    const [jobs] = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').map(Number)
    expect(readFileSync(`/proc/${jobs}/cmdline`, 'utf8')).toContain('lectern job process (')
    server.process.kill('SIGKILL')
    await server.process.catch(() => undefined)
    await pollUntil('the job process to end', () => (existsSync(`/proc/${jobs}`) ? undefined : true))
  })

  it('stops even when its job process hangs: after the grace period the job process is killed', async () => {
    const server = await startServer(await tmpDataDir(), {}, defer, { logLevel: 'info', args: ['--workers', '1'] })
    const pid = server.process.pid!
    const [jobs] = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').map(Number)
    // Stopped, it cannot answer the server's stop, as a job process stuck in native code would not.
    process.kill(jobs, 'SIGSTOP')
    server.process.kill('SIGTERM')
    const { exitCode, stdout } = await server.process
    expect(exitCode).toBe(0)
    const lines = String(stdout).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line)
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, graceMs: STOP_GRACE_MS, jobProcess: jobs, msg: 'the job process did not stop in time; killing it (its job is queued again at the next start)' }))
    expect(lines.filter((l) => l.msg.startsWith('the job process ended unexpectedly'))).toEqual([])
    expect(existsSync(`/proc/${jobs}`)).toBe(false)
  })
})

describe('lectern serve --workers 2 on one CPU', () => {
  it('starts both workers, warning once at start that more workers than CPUs only adds contention', async () => {
    const served = await startWorkers(await tmpDataDir(), {}, [], { cpus: 1 })
    expect(served.children()).toHaveLength(2)
    expect(workersOf(await served.batch(4, '/api/v2/libs/search?libraryName=x'))).toEqual([1, 2])
    served.server.process.kill('SIGTERM')
    const { exitCode, stdout } = await served.server.process
    expect(exitCode).toBe(0)
    const lines = String(stdout).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line)
    expect(lines.filter((l) => l.msg.includes('CPU'))).toEqual([
      expect.objectContaining({ level: 40, worker: 0, workers: 2, cpus: 1, msg: '2 workers on 1 CPU: more serving processes than CPUs only adds contention (server.workers, --workers)' }),
    ])
  })
})

describe('the workers setting', () => {
  it('defaults to one per CPU, is shown by config get, and refuses what is not a count', async () => {
    const dataDir = await tmpDataDir()
    await (await openStore(dataDir)).close()
    const shown = async (env: CliEnv) => JSON.parse((await runCli(['config', 'get', 'server.workers', '--json', '--data-dir', dataDir], env)).stdout) as Array<{ value: unknown; source: string }>
    const { availableParallelism } = await import('node:os')
    // The suite serves from one process (vitest.config.ts): the default is seen without that setting.
    expect(await shown({ LECTERN_WORKERS: undefined })).toEqual([expect.objectContaining({ value: availableParallelism(), source: 'default' })])
    expect(await shown({ LECTERN_WORKERS: '3' })).toEqual([expect.objectContaining({ value: 3, source: 'env LECTERN_WORKERS' })])
    // The text shows the setting as written, as the README's table gives its default.
    expect((await runCli(['config', 'get', 'server.workers', '--data-dir', dataDir], { LECTERN_WORKERS: undefined })).stdout.trim()).toBe('auto')
    const env = await runCli(['config', 'get', '--json', '--data-dir', dataDir], { LECTERN_WORKERS: '0' })
    expect(env.exitCode).toBe(2)
    expect(JSON.parse(env.stdout)).toEqual({ error: 'validation_error', message: 'Invalid setting server.workers (from LECTERN_WORKERS): expected auto or a whole number from 1 to 256, not "0".' })
    const flag = await runCli(['serve', '--workers', 'many', '--data-dir', dataDir])
    expect(flag.exitCode).toBe(2)
    expect(flag.stderr.replace(/\s+/g, ' ')).toContain('Invalid setting server.workers (from --workers): expected auto or a whole number from 1 to 256, not "many".')
  })
})
