/**
 * A real server process killed while it indexes (SIGKILL: no cleanup at all) must come back on
 * the next start: the lock taken over, the half-built set swept, the job run again, the database
 * intact. SIGTERM instead drains: exit 0, lock released, nothing half-built left.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import type { ContextResponse } from '../../src/index/render.js'
import { openStore } from '../../src/store/index.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { largeDocs } from '../helpers/large-docs.js'
import { pollUntil } from '../helpers/poll.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { inspect } from '../helpers/inspect-db.js'

// Spawned servers and a few thousand snippets: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 })

const defer = suiteTeardown()
let serverEnv: Record<string, string>

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  // Enough documentation (1,600 pages, 4,800 snippets) that indexing takes a while: a signal
  // sent once the set is building must arrive before the job ends, at 3,000 snippets/s and more.
  await makeGitRepo(largeDocs(1600), { parent: remotes, name: 'large' })
  // No rate limit: the test polls the API.
  serverEnv = { ...gitRedirectEnv(remotes), LECTERN_RATE_LIMIT_ANONYMOUS: '0', LECTERN_RATE_LIMIT_KEYED: '0' }
})

/** Creates a key through the store, as `lectern keys create` would, and submits the repository. */
async function addLarge(server: ServerProcess, dataDir: string): Promise<void> {
  const store = await openStore(dataDir)
  const { key } = await store.keys.create('crash-test')
  await store.close()
  const res = await fetch(`${server.url}/api/v2/add/repo/github`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ docsRepoUrl: 'https://github.com/acme/large' }),
  })
  expect(res.status, await res.text()).toBe(200)
}

const setsWithStatus = (db: Database.Database, status: string) =>
  (db.prepare('SELECT pk FROM snippet_sets WHERE status = ?').pluck().all(status) as number[])

/** Waits until the job is embedding into a `building` set: the moment a crash hurts most. */
function waitForBuildingSet(dataDir: string): Promise<number> {
  return pollUntil('a building snippet set', () => inspect(dataDir, (db) => setsWithStatus(db, 'building')[0]), 60_000)
}

async function stateOf(server: ServerProcess): Promise<string> {
  const res = await fetch(`${server.url}/api/v2/libs/search?libraryName=/acme/large`)
  const body = (await res.json()) as { results: Array<{ state: string }> }
  return body.results[0].state
}

/** SIGTERM, then the exit code once the process has drained. */
async function terminate(server: ServerProcess): Promise<number | undefined> {
  server.process.kill('SIGTERM')
  return (await server.process).exitCode
}

describe('crash recovery', () => {
  it('a server killed mid-indexing recovers on restart', async () => {
    const dataDir = await tmpDataDir()
    const first = await startServer(dataDir, serverEnv)
    await addLarge(first, dataDir)
    const halfBuilt = await waitForBuildingSet(dataDir)
    expect(inspect(dataDir, (db) => db.prepare('SELECT state FROM jobs').pluck().get())).toBe('running')
    first.process.kill('SIGKILL')
    expect((await first.process).signal).toBe('SIGKILL')
    // The dead server's lock and half-built set are still there, as a crash leaves them.
    expect(existsSync(join(dataDir, 'lectern.lock'))).toBe(true)
    expect(inspect(dataDir, (db) => setsWithStatus(db, 'building'))).toEqual([halfBuilt])

    const second = await startServer(dataDir, serverEnv)
    await pollUntil('/acme/large to finalize', async () => ((await stateOf(second)) === 'finalized' ? true : undefined), 90_000)
    const answer = await fetch(`${second.url}/api/v2/context?libraryId=/acme/large&query=configure%20feature7x1&type=json`)
    expect(answer.status).toBe(200)
    const { codeSnippets } = (await answer.json()) as ContextResponse
    expect(codeSnippets[0].codeTitle).toBe('Configure feature7x1')
    expect(await terminate(second)).toBe(0)

    inspect(dataDir, (db) => {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
      expect(setsWithStatus(db, 'building')).toEqual([])
      const live = setsWithStatus(db, 'live')
      expect(live).toHaveLength(1)
      // The lexical index lives in memory: no set has a table of its own.
      expect(db.prepare(`SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'`).pluck().all()).toEqual([])
      expect(db.prepare('SELECT state, attempts FROM jobs').get()).toEqual({ state: 'succeeded', attempts: 2 })
    })
    // Only the live set's engine file is left; the killed build's went. Hash-embedded, the set has
    // no vector index: its engine file holds its vectors.
    const live = inspect(dataDir, (db) => setsWithStatus(db, 'live')[0])
    expect(await readdir(join(dataDir, 'engine'))).toEqual([`set-${live}.engine`])
    expect(await readdir(join(dataDir, 'vectors'))).toEqual([])
    // The killed run's clone went when the job ran again.
    expect(await readdir(join(dataDir, 'repos'))).toEqual([])
  })

  it('with --workers 2, worker 1 killed mid-indexing is started again and runs the job again', async () => {
    const dataDir = await tmpDataDir()
    const server = await startServer(dataDir, serverEnv, undefined, { logLevel: 'info', args: ['--workers', '2'] })
    let log = ''
    server.process.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')))
    const lines = () => log.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { worker?: number; pid: number; msg: string })
    await addLarge(server, dataDir)
    await waitForBuildingSet(dataDir)
    const jobProcess = lines().find((l) => l.msg === 'job started')!
    expect(jobProcess.worker).toBe(1)
    process.kill(jobProcess.pid, 'SIGKILL')

    // A keep-alive connection to the killed worker is reset, as any crashed server's would be.
    await pollUntil('/acme/large to finalize', async () => ((await stateOf(server).catch(() => undefined)) === 'finalized' ? true : undefined), 90_000)
    expect(lines().filter((l) => l.msg === 'job started').map((l) => l.worker)).toEqual([1, 1])
    expect(lines().filter((l) => l.msg === 'job started')[1].pid).not.toBe(jobProcess.pid)
    expect(await terminate(server)).toBe(0)
    inspect(dataDir, (db) => {
      expect(db.prepare('SELECT state, attempts FROM jobs').get()).toEqual({ state: 'succeeded', attempts: 2 })
      expect(setsWithStatus(db, 'building')).toEqual([])
      expect(setsWithStatus(db, 'live')).toHaveLength(1)
    })
  })

  it('a job process killed mid-indexing fails its job only: the server logs why and starts a new job process, which runs the retry', async () => {
    const dataDir = await tmpDataDir()
    const server = await startServer(dataDir, serverEnv, undefined, { logLevel: 'info', args: ['--workers', '1'] })
    let log = ''
    server.process.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')))
    const lines = () => log.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string; jobProcess?: number })
    const jobProcesses = () => lines().filter((l) => l.msg === 'job process started').map((l) => l.jobProcess!)
    const pid = server.process.pid!
    const [first] = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').map(Number)
    // A Ctrl-C or a service manager's SIGTERM reaches the job process too: it leaves the stop to the server.
    process.kill(first, 'SIGINT')
    process.kill(first, 'SIGTERM')
    await addLarge(server, dataDir)
    await waitForBuildingSet(dataDir)
    process.kill(first, 'SIGKILL')

    const ended = await pollUntil('the killed job to end', () =>
      inspect(dataDir, (db) => db.prepare(`SELECT pk, state, error_code AS code, error_message AS message FROM jobs WHERE state != 'running'`).get() as { message: string } | undefined),
    )
    expect(ended).toEqual({ pk: 1, state: 'failed', code: 'internal_error', message: 'The job process was killed by SIGKILL while this job ran (the kernel kills a process with SIGKILL when memory runs out); refresh the library, or add it again, to run it anew.' })
    // The job's own log ends as a failure's does.
    const last = inspect(dataDir, (db) => db.prepare(`SELECT level, message, fields FROM job_logs WHERE job_pk = 1 ORDER BY pk DESC LIMIT 1`).get()) as { level: string; message: string; fields: string }
    expect(last).toMatchObject({ level: 'warn', message: 'job failed' })
    expect(JSON.parse(last.fields)).toEqual({ code: 'internal_error', reason: ended.message })
    // No set was live yet: the version is in error, not left processing.
    expect(await stateOf(server)).toBe('error')
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    const second = await pollUntil('a new job process', () => jobProcesses()[0], 30_000)
    expect(second).not.toBe(first)
    expect(lines()).toContainEqual(
      expect.objectContaining({ level: 50, signal: 'SIGKILL', failedJobs: [1], restartInMs: 1000, msg: 'the job process ended unexpectedly (it was killed by SIGKILL); a new one starts in 1 s' }),
    )
    await pollUntil('readiness', async () => ((await fetch(`${server.url}/api/ready`)).status === 200 ? true : undefined))

    // Submitted again, the library is indexed by the new job process; the half-built set is gone.
    await addLarge(server, dataDir)
    await pollUntil('/acme/large to finalize', async () => ((await stateOf(server)) === 'finalized' ? true : undefined), 90_000)
    expect(await terminate(server)).toBe(0)
    inspect(dataDir, (db) => {
      expect(setsWithStatus(db, 'building')).toEqual([])
      expect(setsWithStatus(db, 'live')).toHaveLength(1)
    })
  })

  it("a server killed while git clones takes the clone with it, and git runs at the job process's priority", async () => {
    // A `git` first on the PATH that never ends, as a clone of a huge repository would not.
    const bin = await tmpDir('lectern-slow-git-', defer)
    const pidFile = join(bin, 'git.pid')
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 600\n`, { mode: 0o755 })
    const dataDir = await tmpDataDir()
    const server = await startServer(dataDir, { ...serverEnv, PATH: `${bin}:${process.env.PATH}` }, undefined, { args: ['--workers', '1'] })
    await addLarge(server, dataDir)
    // The shell creates the file before it writes the pid: an empty read is not yet a pid.
    const git = await pollUntil('git to start', () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) || undefined : undefined))
    // Detached, git leads a session of its own; where the kernel schedules sessions as groups, that group is lowered too.
    const autogroup = '/proc/sys/kernel/sched_autogroup_enabled'
    if (existsSync(autogroup) && readFileSync(autogroup, 'utf8').trim() === '1') {
      await pollUntil('the autogroup to be lowered', () => (readFileSync(`/proc/${git}/autogroup`, 'utf8').includes('nice 19') ? true : undefined))
    }
    server.process.kill('SIGKILL')
    await server.process.catch(() => undefined)
    await pollUntil('git to end with the job process', () => (existsSync(`/proc/${git}`) ? undefined : true))
  })

  // One process, and the primary of two (whose worker 1 runs the job).
  it.each(['1', '2'])('SIGTERM mid-indexing drains with --workers %s: exit 0, lock released, no half-built set, job queued again', async (workers) => {
    const dataDir = await tmpDataDir()
    const server = await startServer(dataDir, serverEnv, undefined, { args: ['--workers', workers] })
    expect(existsSync(join(dataDir, 'lectern.lock'))).toBe(true)
    await addLarge(server, dataDir)
    await waitForBuildingSet(dataDir)
    expect(await terminate(server)).toBe(0)
    expect(existsSync(join(dataDir, 'lectern.lock'))).toBe(false)
    inspect(dataDir, (db) => {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
      expect(db.prepare('SELECT count(*) FROM snippet_sets').pluck().get()).toBe(0)
      // Queued again by the stop, so `lectern jobs` shows it waiting. Its version, which has no
      // set yet, waits as `initial` rather than claiming to be processing.
      expect(db.prepare('SELECT state, status_message FROM jobs').get()).toEqual({ state: 'queued', status_message: 'interrupted by a stop; queued again' })
      expect(db.prepare('SELECT state FROM library_versions').pluck().get()).toBe('initial')
    })
    expect(await readdir(join(dataDir, 'vectors'))).toEqual([])
    expect(await readdir(join(dataDir, 'repos'))).toEqual([])
  })
})
