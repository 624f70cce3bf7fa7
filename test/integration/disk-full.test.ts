/**
 * A full data volume (a real tmpfs filled to the last block) never crashes `lectern serve`: reads
 * keep answering, writes answer 507 disk_full, housekeeping writes wait for space, an ingest that
 * runs out of space fails with disk_full and its half-built set is gone once space returns, a
 * backup says why it failed, and a full log destination stalls nothing. CI runs as root, which
 * mounting needs.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'
import { beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { isLecternError } from '../../src/errors.js'
import { writeVectorIndex } from '../../src/index/vector-index.js'
import { openStore } from '../../src/store/index.js'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { pollUntil } from '../helpers/poll.js'
import { freePort, GRACEFUL_STOP, startServer, type ServerProcess } from '../helpers/server.js'
import { initDataDir, suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { fill, tmpfs } from '../helpers/tmpfs.js'
import { widgetsFiles } from '../helpers/widgets-repo.js'
import { inspect } from '../helpers/inspect-db.js'

vi.setConfig({ testTimeout: 180_000 })

const defer = suiteTeardown()
const PASSWORD = 'correct horse battery staple'
let gitEnv: Record<string, string>

/**
 * 2,000 pages of documentation, so writing the set lasts long enough (seconds, more on a loaded
 * machine) for the test to fill the volume while it runs, and 2 MB of noise (a clone needs room).
 */
function largeDocs(): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = { 'assets/noise.bin': randomBytes(2 * 1024 * 1024) }
  for (let page = 0; page < 2000; page++) {
    const sections = Array.from({ length: 3 }, (_, s) => {
      const name = `feature${page}x${s}`
      return `## Configure ${name}\n\nThe ${name} option controls how page ${page} renders its widgets.\n\n\`\`\`ts\nimport { ${name} } from 'large'\n\n${name}({ retries: ${s}, page: ${page} })\n\`\`\`\n`
    })
    files[`docs/page-${String(page).padStart(4, '0')}.md`] = `# Page ${page}\n\n${sections.join('\n')}`
  }
  return files
}

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(widgetsFiles(), { parent: remotes, name: 'widgets' })
  await makeGitRepo(largeDocs(), { parent: remotes, name: 'large' })
  gitEnv = { ...gitRedirectEnv(remotes), LECTERN_RATE_LIMIT_ANONYMOUS: '0', LECTERN_RATE_LIMIT_KEYED: '0' }
})

/** A data dir on `mountPoint` with /acme/widgets indexed, an admin and an API key. */
async function preparedDataDir(mountPoint: string): Promise<{ dataDir: string; key: string }> {
  const dataDir = await initDataDir(path.join(mountPoint, 'data'))
  const added = await runCli(['add', 'https://github.com/acme/widgets', '--wait', '--data-dir', dataDir], gitEnv)
  expect(added.exitCode, added.stderr).toBe(0)
  const store = await openStore(dataDir)
  await store.users.create({ email: 'ops@example.com', password: PASSWORD })
  const { key } = await store.keys.create('reader')
  await store.close()
  return { dataDir, key }
}

/** Collects the server's log lines (JSON, as they are when stdout is not a terminal). */
function logLines(server: ServerProcess): () => Array<Record<string, unknown>> {
  let text = ''
  server.process.stdout!.on('data', (chunk: Buffer) => void (text += chunk.toString()))
  return () =>
    text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
}

const login = (url: string) =>
  fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }) })

describe('a full data volume', () => {
  it('keeps reads answering; writes answer 507 disk_full; usage counts wait for space', async () => {
    const mountPoint = await tmpfs('32m')
    const { dataDir, key } = await preparedDataDir(mountPoint)
    const server = await startServer(dataDir, gitEnv)
    const logs = logLines(server)
    const free = fill(mountPoint)

    const auth = { authorization: `Bearer ${key}` }
    for (let i = 0; i < 3; i++) {
      // Keyed, so the key's last-use stamp is attempted too (and fails quietly).
      const context = await fetch(`${server.url}/api/v2/context?libraryId=/acme/widgets&query=install&type=json`, { headers: auth })
      expect(context.status).toBe(200)
      expect(((await context.json()) as { codeSnippets: unknown[] }).codeSnippets.length).toBeGreaterThan(0)
    }
    expect((await fetch(`${server.url}/api/v2/libs/search?libraryName=widgets`, { headers: auth })).status).toBe(200)

    const refused = await login(server.url)
    expect(refused.status).toBe(507)
    expect(await refused.json()).toMatchObject({ error: 'disk_full', message: expect.stringMatching(/disk is full.*Reads keep working/) })
    const add = await fetch(`${server.url}/api/v2/add/repo/github`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ docsRepoUrl: 'https://github.com/acme/large' }) })
    expect(add.status).toBe(507)
    expect(await add.json()).toMatchObject({ error: 'disk_full' })

    // The usage flush (every 5 s) fails, says so once, and the server stays up.
    await pollUntil('the failed usage flush to be logged', () => (logs().some((l) => l.task === 'writing usage counts' && l.level === 50) ? true : undefined))
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    expect(server.process.exitCode).toBeNull()

    free()
    expect((await login(server.url)).status).toBe(200)
    // Each worker process keeps and flushes its own counts: wait for all of them.
    const counted = await pollUntil('the kept usage counts to be written', () => {
      const requests = inspect(dataDir, (db) => db.prepare('SELECT sum(requests) FROM usage_daily').pluck().get() as number | null)
      return requests && requests >= 3 ? requests : undefined
    })
    expect(counted).toBe(3)
  })

  it('fails an ingest that runs out of space with disk_full and removes its half-built set once space returns', async () => {
    const mountPoint = await tmpfs('64m')
    const { dataDir, key } = await preparedDataDir(mountPoint)
    const server = await startServer(dataDir, gitEnv)
    const logs = logLines(server)
    const add = await fetch(`${server.url}/api/v2/add/repo/github`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docsRepoUrl: 'https://github.com/acme/large' }),
    })
    expect(add.status).toBe(200)
    const building = await pollUntil(
      'the large library to be written into a building set',
      () => inspect(dataDir, (db) => db.prepare(`SELECT pk FROM snippet_sets WHERE status = 'building'`).pluck().get() as number | undefined),
      60_000,
    )
    const free = fill(mountPoint)
    // The failure may not even be recordable until space returns; the server stays up meanwhile.
    const failure = await pollUntil('the job to fail', () => logs().find((l) => l.msg === 'job failed'), 60_000)
    expect(failure).toMatchObject({ code: 'disk_full' })
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    free()

    const failed = await pollUntil('the failure to be recorded', () =>
      inspect(dataDir, (db) => db.prepare(`SELECT state, error_code AS code, error_message AS message FROM jobs WHERE kind = 'ingest' AND state = 'failed'`).get() as { code: string; message: string } | undefined),
    )
    expect(failed).toMatchObject({ code: 'disk_full', message: expect.stringMatching(/disk is full/) })
    await pollUntil('the half-built set to be removed', () => (inspect(dataDir, (db) => db.prepare('SELECT count(*) FROM snippet_sets WHERE pk = ?').pluck().get(building)) === 0 ? true : undefined))
    expect(fs.readdirSync(path.join(dataDir, 'vectors')).filter((f) => f.startsWith(`set-${building}.`))).toEqual([])
    expect(inspect(dataDir, (db) => db.pragma('integrity_check', { simple: true }))).toBe('ok')
    const search = (await (await fetch(`${server.url}/api/v2/libs/search?libraryName=/acme/large`)).json()) as { results: Array<{ state: string }> }
    expect(search.results[0]!.state).not.toBe('processing')
  })

  it('fails a clone that runs out of space with disk_full, not source_unreachable', async () => {
    const mountPoint = await tmpfs('32m')
    const { dataDir, key } = await preparedDataDir(mountPoint)
    const server = await startServer(dataDir, gitEnv)
    // Room for the request's rows, not for a 2 MB clone.
    fill(mountPoint, 256 * 1024)
    const add = await fetch(`${server.url}/api/v2/add/repo/github`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docsRepoUrl: 'https://github.com/acme/large' }),
    })
    expect(add.status).toBe(200)
    const failed = await pollUntil('the clone to fail', () =>
      inspect(dataDir, (db) => db.prepare(`SELECT error_code AS code, error_message AS message FROM jobs WHERE kind = 'ingest' AND state = 'failed'`).get() as { code: string; message: string } | undefined),
    )
    expect(failed).toMatchObject({ code: 'disk_full', message: expect.stringMatching(/git clone of https:\/\/github\.com\/acme\/large failed: the disk is full/) })
    expect(fs.readdirSync(path.join(dataDir, 'repos'))).toEqual([])
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
  })

  it('makes a backup fail with the reason: lectern backup (exit 10, --json) and GET /api/backup/status', async () => {
    const mountPoint = await tmpfs('32m')
    const { dataDir } = await preparedDataDir(mountPoint)
    const server = await startServer(dataDir, gitEnv)
    const cookie = (await login(server.url)).headers.get('set-cookie')!.split(';')[0]!
    const free = fill(mountPoint)

    const cli = await runCli(['backup', '--json', '--data-dir', dataDir])
    expect(cli.exitCode, cli.stdout + cli.stderr).toBe(10)
    expect(JSON.parse(cli.stdout)).toMatchObject({ error: 'disk_full', message: expect.stringMatching(/The disk is full: the backup to dir:.* failed/) })
    const human = await runCli(['backup', '--data-dir', dataDir])
    expect(human.exitCode).toBe(10)
    expect(human.stderr.replace(/\s+/g, ' ')).toMatch(/The disk is full: the backup/)

    expect((await fetch(`${server.url}/api/backup`, { method: 'POST', headers: { cookie } })).status).toBe(202)
    const last = await pollUntil('the backup to end', async () => {
      const status = (await (await fetch(`${server.url}/api/backup/status`, { headers: { cookie } })).json()) as { running: boolean; last: Record<string, unknown> | null }
      return status.running ? undefined : status.last
    })
    expect(last).toMatchObject({ ok: false, trigger: 'manual', code: 'disk_full', error: expect.stringMatching(/The disk is full/) })
    expect(fs.readdirSync(path.join(dataDir, 'backups')).filter((f) => f.includes('lectern-backup'))).toEqual([])
    free()
  })
})

describe('a vector index that does not fit', () => {
  it('fails as disk_full (usearch itself only says "Failed to serialize") and leaves no partial file', async () => {
    const mountPoint = await tmpfs('1m')
    const file = path.join(mountPoint, 'set-1.usearch')
    const vectors = Array.from({ length: 8000 }, () => Float32Array.from({ length: 256 }, () => Math.random()))
    let thrown: unknown
    try {
      writeVectorIndex(file, { provider: 'hash', model: 'hash-v1' }, 256, vectors.map((_, i) => i + 1), vectors)
    } catch (err) {
      thrown = err
    }
    expect(isLecternError(thrown) && thrown.code).toBe('disk_full')
    expect((thrown as Error).message).toMatch(/writing a vector index failed/)
    expect(fs.readdirSync(mountPoint)).toEqual([])
  })
})

describe('a full log destination', () => {
  it('stalls and crashes nothing: the server keeps answering and stops cleanly', async () => {
    const mountPoint = await tmpfs('1m')
    const dataDir = await tmpDir('lectern-data-')
    const logFile = path.join(mountPoint, 'lectern.log')
    const port = await freePort()
    const server = execa('node', ['bin/run.js', 'serve', '--data-dir', dataDir, '--port', String(port), '--log-level', 'debug', '--log-format', 'json'], {
      cwd: PROJECT_ROOT,
      stdin: 'ignore',
      stdout: { file: logFile },
      reject: false,
      ...GRACEFUL_STOP,
      env: { LECTERN_RATE_LIMIT_ANONYMOUS: '0' },
    })
    onTestFinished(async () => {
      if (server.exitCode === null) server.kill('SIGKILL')
      await server
    })
    const url = `http://127.0.0.1:${port}`
    await pollUntil('the server to be ready', async () => ((await fetch(`${url}/api/ready`).catch(() => undefined))?.status === 200 ? true : undefined))
    fill(mountPoint)
    expect(fs.statfsSync(mountPoint).bavail).toBe(0)
    // Hundreds of logged requests against a destination that takes no more bytes.
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => fetch(`${url}/api/v2/libs/search?libraryName=nothing-${round}`)))
      for (const answer of answers) expect(answer.status).toBe(404)
    }
    const started = Date.now()
    expect((await fetch(`${url}/api/health`)).status).toBe(200)
    expect(Date.now() - started).toBeLessThan(1000)
    server.kill('SIGTERM')
    const ended = await server
    expect(ended.exitCode, `${ended.signal ?? ''} ${String(ended.stderr).slice(0, 2000)}`).toBe(0)
  })
})
