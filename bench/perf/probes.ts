/**
 * Probes under load: how fast `/api/health` and `/api/ready` answer while 50 clients ask
 * /api/v2/context, /api/v2/libs/search and /mcp, alone and while the server ingests a large
 * repository or writes backups back to back; and how long the server's event loop was held.
 *
 * Each scenario runs the real `lectern serve` binary (dist/) on its own copy of a docs store,
 * with its default logging (info, JSON to a file), preloaded with loop-delay.js to record the
 * event-loop delay. A prober on its own thread times the probes one at a time.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import autocannon from 'autocannon'
import { submitRepository } from '../../src/jobs/submit.js'
import { resolveConfig } from '../../src/config.js'
import { openRuntime } from '../../src/runtime.js'
import { openStore } from '../../src/store/index.js'
import { markdownRepo, questions } from './docs.js'
import { commitRepo, withGitRedirect } from './ingest.js'
import type { LoopDelay } from './loop-delay.js'
import { PROJECT_ROOT, siblingModule, WORK_DIR } from './paths.js'
import { row, type Row } from './report.js'
import type { ProbeSample } from './probe-worker.js'
import { contextPath, freePort } from './servers.js'

export type Scenario = 'idle' | 'ingest' | 'backup' | 'load' | 'load + ingest' | 'load + backup'
export const SCENARIOS: Scenario[] = ['idle', 'ingest', 'backup', 'load', 'load + ingest', 'load + backup']

/**
 * The load alone and the load during an ingest, run this many times in turn: one pair's p99
 * ratio moved from 1.27x to 1.88x between runs of the same build on this host (bench/RESULTS.md,
 * seventh session), so the ratio reported is the median of the pairs.
 */
const INGEST_PAIRS = 3

/** Every scenario once, then the load alone and during an ingest again until there are INGEST_PAIRS of them. */
export const BENCH_SCENARIOS: Scenario[] = [...SCENARIOS, ...Array.from({ length: INGEST_PAIRS - 1 }, () => ['load', 'load + ingest'] as const).flat()]

export interface ProbePlan {
  seconds: number
  connections: number
}

export interface Latencies {
  count: number
  failed: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

export interface ScenarioResult {
  scenario: Scenario
  health: Latencies
  ready: Latencies
  load?: { requests: number; reqPerSec: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number; timeouts: number }
  loop: LoopDelay
  /** The five slowest probes, with when they were sent (ms after the prober started). */
  slowest: ProbeSample[]
  /** What the background work did during the window (jobs, backups). */
  work: string
}

const STORE_DIR = path.join(WORK_DIR, 'probe-docs')
const STORE_FILES = 1000
const INGEST_FILES = 2000
const SEED = 20_241_122
const ADMIN = 'bench-probes@lectern.invalid'

const sorted = (values: number[]) => [...values].sort((a, b) => a - b)
const at = (values: number[], p: number) => (values.length === 0 ? Number.NaN : values[Math.min(values.length - 1, Math.floor(values.length * p))])

function latencies(samples: ProbeSample[], probe: string): Latencies {
  const mine = samples.filter((s) => s.path === probe)
  const ms = sorted(mine.map((s) => s.ms))
  return { count: mine.length, failed: mine.filter((s) => s.status !== 200).length, p50Ms: at(ms, 0.5), p99Ms: at(ms, 0.99), maxMs: ms.at(-1) ?? Number.NaN }
}

/** A realistic library to query: a generated docs repository ingested once through git + worker, kept in bench/.work/. */
async function ensureDocsStore(log: (line: string) => void): Promise<void> {
  if (fs.existsSync(path.join(STORE_DIR, 'ready'))) return
  fs.rmSync(STORE_DIR, { recursive: true, force: true })
  const remotes = path.join(STORE_DIR, 'remotes')
  commitRepo(path.join(remotes, 'docs'), markdownRepo(STORE_FILES, SEED))
  const started = performance.now()
  const runtime = await openRuntime({ config: resolveConfig({ dataDir: path.join(STORE_DIR, 'data') }).config })
  try {
    await withGitRedirect(`file://${remotes}/`, 'https://github.com/bench/', async () => {
      await submitRepository(runtime.store, { sourceKind: 'github', docsRepoUrl: 'https://github.com/bench/docs' }, runtime.guard)
      await runtime.worker.drain()
    })
  } finally {
    await runtime.close()
  }
  fs.rmSync(remotes, { recursive: true, force: true })
  fs.writeFileSync(path.join(STORE_DIR, 'ready'), '')
  log(`  docs store: ${STORE_FILES} Markdown files ingested in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

interface Server {
  base: string
  logFile: string
  stop(): Promise<LoopDelay>
}

async function startServe(dataDir: string, scratch: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort()
  const logFile = path.join(scratch, 'server.log')
  const delayFile = path.join(scratch, 'loop-delay.json')
  const out = fs.openSync(logFile, 'w')
  const child = spawn(
    process.execPath,
    // One process: the event-loop delay recorded is the loop that serves (with --workers N it
    // would be the primary's, which serves nothing).
    ['--import', pathToFileURL(siblingModule('loop-delay')).href, 'bin/run.js', 'serve', '--workers', '1', '--data-dir', dataDir, '--port', String(port), '--log-format', 'json'],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env, LECTERN_RATE_LIMIT_ANONYMOUS: '0', LECTERN_RATE_LIMIT_KEYED: '0', LECTERN_BENCH_LOOP_DELAY_FILE: delayFile },
      stdio: ['ignore', out, out],
    },
  )
  fs.closeSync(out)
  const base = `http://127.0.0.1:${port}`
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`lectern serve exited with ${child.exitCode}: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`)
    const res = await fetch(`${base}/api/ready`).catch(() => undefined)
    if (res?.status === 200) {
      child.kill('SIGUSR2')
      break
    }
    if (Date.now() > deadline) throw new Error('lectern serve did not become ready within 60 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    base,
    logFile,
    async stop() {
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
      return JSON.parse(fs.readFileSync(delayFile, 'utf8')) as LoopDelay
    },
  }
}

/** The request mix of the 50 clients: context questions, library searches and MCP tool calls. */
function requestMix(libraryId: string): autocannon.Request[] {
  const asked = questions(600, SEED)
  const mcpBody = (i: number, query: string) =>
    JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'query-docs', arguments: { libraryId, query } } })
  let next = 0
  return [
    {
      setupRequest: (request) => {
        const i = next++
        const query = asked[i % asked.length]
        switch (i % 4) {
          case 1:
            return { ...request, method: 'GET', path: `/api/v2/libs/search?libraryName=docs&query=${encodeURIComponent(query)}` }
          case 3:
            return { ...request, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: mcpBody(i, query) }
          default:
            return { ...request, method: 'GET', path: contextPath(libraryId, query) }
        }
      },
    },
  ]
}

async function runScenario(scenario: Scenario, plan: ProbePlan, scratch: string, remotes: string): Promise<ScenarioResult> {
  const dir = path.join(scratch, scenario.replace(/\W+/g, '-'))
  const dataDir = path.join(dir, 'data')
  fs.cpSync(path.join(STORE_DIR, 'data'), dataDir, { recursive: true })
  const store = await openStore(dataDir)
  let key: string
  let cookie: string
  const libraryId = '/bench/docs'
  try {
    key = (await store.keys.create('bench-probes')).key
    const admin = await store.users.create({ email: ADMIN, password: ADMIN, role: 'admin' })
    cookie = `lectern_session=${(await store.users.startSession(admin.id)).token}`
    await store.settings.set('backup.config', { destination: { type: 'dir', path: path.join(dir, 'backups') }, schedule: null, retention: { keep: 1 } })
  } finally {
    await store.close()
  }
  const server = await startServe(dataDir, dir, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `url.file://${remotes}/.insteadOf`, GIT_CONFIG_VALUE_0: 'https://github.com/bench/' })
  let loop: LoopDelay | undefined
  try {
    const withLoad = scenario.startsWith('load')
    const prober = new Worker(siblingModule('probe-worker'), { workerData: { base: server.base } })
    await once(prober, 'message')
    if (withLoad) await autocannon({ url: server.base, connections: plan.connections, duration: 2, requests: requestMix(libraryId) })
    prober.postMessage('start')
    const background = startBackground(scenario, server.base, key, cookie)
    const load = withLoad
      ? await autocannon({ url: server.base, connections: plan.connections, duration: plan.seconds, requests: requestMix(libraryId) })
      : await new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), plan.seconds * 1000))
    const samples = once(prober, 'message')
    prober.postMessage('stop')
    const [probed] = (await samples) as [ProbeSample[]]
    await prober.terminate()
    const work = await background.stop()
    loop = await server.stop()
    return {
      scenario,
      health: latencies(probed, '/api/health'),
      ready: latencies(probed, '/api/ready'),
      slowest: [...probed].sort((a, b) => b.ms - a.ms).slice(0, 5),
      load: load && {
        requests: load.requests.total,
        reqPerSec: load.requests.average,
        p50Ms: load.latency.p50,
        p99Ms: load.latency.p99,
        non2xx: load.non2xx,
        errors: load.errors,
        timeouts: load.timeouts,
      },
      loop,
      work,
    }
  } finally {
    if (!loop) await server.stop().catch(() => undefined)
  }
}

/** The scenario's work beside the load: one large ingest, or backups back to back. */
function startBackground(scenario: Scenario, base: string, key: string, cookie: string): { stop(): Promise<string> } {
  if (scenario.endsWith('ingest')) {
    const submitted = fetch(`${base}/api/v2/add/repo/github`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ docsRepoUrl: 'https://github.com/bench/large' }),
    }).then(async (res) => {
      if (res.status !== 200) throw new Error(`add answered ${res.status}: ${await res.text()}`)
    })
    return {
      async stop() {
        await submitted
        const res = await fetch(`${base}/api/v2/libs/search?libraryName=/bench/large`, { headers: { authorization: `Bearer ${key}` } })
        const body = (await res.json()) as { results: Array<{ id: string; state: string }> }
        return `ingest of ${INGEST_FILES} files: ${body.results.find((r) => r.id === '/bench/large')?.state ?? 'unknown'} at the end of the window`
      },
    }
  }
  if (scenario.endsWith('backup')) {
    let running = true
    let backups = 0
    const loop = (async () => {
      while (running) {
        const res = await fetch(`${base}/api/backup`, { method: 'POST', headers: { cookie } })
        if (res.status !== 202) throw new Error(`POST /api/backup answered ${res.status}: ${await res.text()}`)
        for (;;) {
          const status = (await (await fetch(`${base}/api/backup/status`, { headers: { cookie } })).json()) as { running: boolean; last?: { ok: boolean; error?: string } }
          if (!status.running) {
            if (status.last && !status.last.ok) throw new Error(`backup failed: ${status.last.error}`)
            break
          }
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        backups++
      }
    })()
    return {
      async stop() {
        running = false
        await loop
        return `${backups} backups written back to back`
      },
    }
  }
  return { stop: async () => '' }
}

export async function runProbeBench(plan: ProbePlan, log: (line: string) => void, only: Scenario[] = BENCH_SCENARIOS): Promise<ScenarioResult[]> {
  await ensureDocsStore(log)
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-probes-'))
  try {
    const remotes = path.join(scratch, 'remotes')
    commitRepo(path.join(remotes, 'large'), markdownRepo(INGEST_FILES, SEED + 1))
    const results: ScenarioResult[] = []
    for (const scenario of only) {
      const clients = scenario.startsWith('load') ? `${plan.connections} clients` : 'no clients'
      log(`  ${scenario}: ${clients}, ${plan.seconds} s (host load average ${os.loadavg()[0].toFixed(2)})`)
      const result = await runScenario(scenario, plan, scratch, remotes)
      log(`    ${describe(result)}`)
      results.push(result)
    }
    // Every sample's summary and each stall's time, for a closer look than the table gives.
    fs.writeFileSync(path.join(WORK_DIR, 'probes.json'), JSON.stringify(results, null, 2))
    return results
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** Probes must answer within this (issue 9, item 21); requests must not fail or time out. */
export const PROBE_TARGET_MS = 100

/** The summary rows: per scenario, probe latencies, requests that failed, and the longest event-loop delay. */
export function probeRows(results: ScenarioResult[]): Row[] {
  return results.flatMap((result, i) => {
    // A scenario run again is labelled with its run: `load (2)`.
    const run = results.slice(0, i + 1).filter((r) => r.scenario === result.scenario).length
    const r = run > 1 ? { ...result, scenario: `${result.scenario} (${run})` } : result
    const slowest = Math.max(r.health.maxMs, r.ready.maxMs)
    const failedProbes = r.health.failed + r.ready.failed
    const rows = [
      row(`Probes, ${r.scenario}: /api/health p50 / p99 / max`, `${ms(r.health.p50Ms)} / ${ms(r.health.p99Ms)} / ${ms(r.health.maxMs)} (${r.health.count})`),
      row(`Probes, ${r.scenario}: /api/ready p50 / p99 / max`, `${ms(r.ready.p50Ms)} / ${ms(r.ready.p99Ms)} / ${ms(r.ready.maxMs)} (${r.ready.count})`),
      row(`Probes, ${r.scenario}: slowest probe, failed probes`, `${ms(slowest)}, ${failedProbes}`, `<= ${PROBE_TARGET_MS} ms, 0`, slowest <= PROBE_TARGET_MS && failedProbes === 0),
      row(`Probes, ${r.scenario}: event-loop delay p99 / max`, `${ms(r.loop.p99Ms)} / ${ms(r.loop.maxMs)}`),
    ]
    if (r.load) {
      const failed = r.load.non2xx + r.load.errors + r.load.timeouts
      rows.push(
        row(
          `Probes, ${r.scenario}: the clients' requests`,
          `${Math.round(r.load.reqPerSec)} req/s, p50 ${r.load.p50Ms} ms, p99 ${r.load.p99Ms} ms; ${r.load.non2xx} non-2xx, ${r.load.errors} errors, ${r.load.timeouts} timeouts`,
          '0 failed',
          failed === 0,
        ),
      )
    }
    if (r.work) rows.push(row(`Probes, ${r.scenario}: background work`, r.work))
    return rows
  }).concat(ingestStallRow(results))
}

/**
 * Issue 11: the clients' p99 while a 2,000-file repository ingests stays within 1.5x of the same
 * load alone. Each run of the load during an ingest is paired with the run of the load alone
 * before it; the median pair is judged, every pair shown.
 */
function ingestStallRow(results: ScenarioResult[]): Row[] {
  const alone = results.filter((r) => r.scenario === 'load').map((r) => r.load!)
  const ingesting = results.filter((r) => r.scenario === 'load + ingest').map((r) => r.load!)
  const pairs = ingesting.slice(0, alone.length).map((during, i) => ({ during: during.p99Ms, alone: alone[i].p99Ms, ratio: during.p99Ms / alone[i].p99Ms }))
  if (pairs.length === 0) return []
  const median = [...pairs].sort((a, b) => a.ratio - b.ratio)[(pairs.length - 1) >> 1]
  const each = pairs.map((p) => `${p.during} / ${p.alone} ms = ${p.ratio.toFixed(2)}x`).join('; ')
  return [row(`Clients' p99 during an ingest / alone (median of ${pairs.length})`, `${median.ratio.toFixed(2)}x (${each})`, '<= 1.5x', median.ratio <= 1.5)]
}

const ms = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`
const lat = (l: Latencies) => `p50 ${ms(l.p50Ms)} / p99 ${ms(l.p99Ms)} / max ${ms(l.maxMs)} (${l.count}${l.failed > 0 ? `, ${l.failed} failed` : ''})`

export function describe(r: ScenarioResult): string {
  const load = r.load
    ? `; load ${Math.round(r.load.reqPerSec)} req/s, p50 ${r.load.p50Ms} ms, p99 ${r.load.p99Ms} ms, ${r.load.non2xx} non-2xx, ${r.load.errors} errors, ${r.load.timeouts} timeouts`
    : ''
  const stalls = r.loop.stalls.length > 0 ? `, ${r.loop.stalls.length} stalls >= 100 ms (longest ${Math.max(...r.loop.stalls.map((s) => s.ms))} ms)` : ''
  return `health ${lat(r.health)}; ready ${lat(r.ready)}${load}; event loop delay p50 ${ms(r.loop.p50Ms)} / p99 ${ms(r.loop.p99Ms)} / max ${ms(r.loop.maxMs)}${stalls}${r.work ? `; ${r.work}` : ''}`
}

/** `node dist/bench/perf/probes.js [seconds] [scenario...]`: the probe figures alone. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [seconds, ...names] = process.argv.slice(2)
  const only = names.length > 0 ? SCENARIOS.filter((s) => names.includes(s)) : SCENARIOS
  await runProbeBench({ seconds: Number(seconds ?? 10), connections: 50 }, console.log, only)
}
