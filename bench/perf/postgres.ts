/**
 * Issue 31's figures, each against a baseline of the same run: `/v2/context` from one replica on
 * PostgreSQL against the same server on SQLite, and from two replicas on one database; ingest into
 * PostgreSQL against ingest into SQLite; and the failover of a job whose replica is killed (the
 * job re-claimed once its lease lapses, at the default lease). PostgreSQL is Debian's, a cluster
 * of its own writing as a production server does (fsync on), on this same machine: its cores are
 * the replicas' and the load generator's too, which the figures must be read with.
 */
import { execa, type ResultPromise } from 'execa'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { postgresPrograms, startPostgresCluster, type PostgresCluster } from '../../scripts/postgres-cluster.js'
import { DEFAULT_LEASE_MS } from '../../src/jobs/lease.js'
import { submitRepository } from '../../src/jobs/submit.js'
import { dataPaths } from '../../src/install/paths.js'
import { openStore } from '../../src/store/index.js'
import { acquireDataDirLock } from '../../src/store/lock.js'
import { migrateStore } from '../../src/store/migrate-store.js'
import type { Corpus } from './corpus.js'
import { markdownRepo } from './docs.js'
import { benchIngest, commitRepo, type IngestResult } from './ingest.js'
import { runLoad, type LoadResult } from './load.js'
import { PROJECT_ROOT } from './paths.js'
import { int, latency, row, seconds, type Row } from './report.js'
import { freePort, startServer, type RunningServer } from './servers.js'

export interface PostgresPlan {
  warmupSeconds: number
  loadSeconds: number
  connections: number
  ingestFiles: number
  seed: number
}

/** The target of the issue: a replica on PostgreSQL serves at least this share of the same process on SQLite. */
const REPLICA_RATIO = 0.8
/** Files of the repository whose ingest is killed for the failover: long enough to be running when the kill comes. */
const FAILOVER_FILES = 4000

export async function runPostgresBench(corpus: Pick<Corpus, 'dataDir'>, paths: string[], sqliteIngest: IngestResult | undefined, plan: PostgresPlan, log: (line: string) => void): Promise<Row[]> {
  const bin = postgresPrograms()
  if (!bin) {
    log('  skipped: PostgreSQL is not installed (Debian package postgresql; scripts/system-packages.sh installs it)')
    return []
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-postgres-'))
  const cluster = await startPostgresCluster(bin, tmp, { durable: true })
  try {
    const key = fs.readFileSync(dataPaths(corpus.dataDir).secretKey)
    const env = async (database: string) => ({ DATABASE_URL: await createDatabase(cluster, database), LECTERN_SECRET_KEY: key.toString('hex') })
    const store = await env('store')
    const copied = await copyCorpus(corpus.dataDir, store.DATABASE_URL, key)
    log(`  the 10k store copied into PostgreSQL by migrate-store in ${seconds(copied.ms)} (${int(copied.rows)} rows)`)
    const rows: Row[] = []
    rows.push(...(await loadRows(corpus.dataDir, store, paths, plan, log)))
    rows.push(...(await ingestRows(cluster, key.toString('hex'), plan, sqliteIngest, log)))
    rows.push(...(await failoverRows(await env('failover'), plan.seed, log)))
    return rows
  } finally {
    await cluster.stop()
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

/** Transactions the database has committed so far (pg_stat_database), this query's own included. */
async function transactions(url: string): Promise<number> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    return Number((await client.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0]!.n)
  } finally {
    await client.end()
  }
}

async function createDatabase(cluster: PostgresCluster, name: string): Promise<string> {
  const client = new pg.Client(cluster.url)
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  return cluster.url.replace(/\/postgres$/, `/${name}`)
}

async function copyCorpus(dataDir: string, url: string, key: Buffer): Promise<{ ms: number; rows: number }> {
  const paths = dataPaths(dataDir)
  const lock = acquireDataDirLock(paths.lock, paths.root)
  try {
    const started = performance.now()
    const result = await migrateStore(paths, { url, shownAs: 'the bench database', key })
    return { ms: performance.now() - started, rows: result.rows }
  } finally {
    lock.release()
  }
}

async function measured(ports: number[], paths: string[], plan: PostgresPlan): Promise<LoadResult> {
  // The connections split over the servers, so each side is asked with the same concurrency in total.
  const connections = Math.max(1, Math.floor(plan.connections / ports.length))
  const load = (seconds: number) => Promise.all(ports.map((port, i) => runLoad({ port, paths: paths.slice(i).concat(paths.slice(0, i)), seconds, connections })))
  await load(plan.warmupSeconds)
  const results = await load(plan.loadSeconds)
  return {
    reqPerSec: results.reduce((n, r) => n + r.reqPerSec, 0),
    p50Ms: Math.max(...results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    requests: results.reduce((n, r) => n + r.requests, 0),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
  }
}

async function withServers<T>(servers: RunningServer[], run: (servers: RunningServer[]) => Promise<T>): Promise<T> {
  try {
    return await run(servers)
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

function describe(label: string, r: LoadResult, log: (line: string) => void): void {
  const faults = r.non2xx + r.errors > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''
  log(`  ${label}: ${int(r.reqPerSec)} req/s, p50 ${latency(r.p50Ms)}, p99 ${latency(r.p99Ms)} (${int(r.requests)} requests${faults})`)
}

async function loadRows(sqliteDir: string, env: Record<string, string>, paths: string[], plan: PostgresPlan, log: (line: string) => void): Promise<Row[]> {
  const replicaDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-replica-'))
  log(`  ${plan.connections} connections in total, ${plan.loadSeconds} s each; host load average ${os.loadavg()[0].toFixed(2)} on ${os.availableParallelism()} CPUs`)
  const sqlite = await withServers([await startServer({ kind: 'lectern', dataDir: sqliteDir })], (s) => measured(s.map((x) => x.port), paths, plan))
  describe('SQLite, one process', sqlite, log)
  const before = await transactions(env.DATABASE_URL)
  const one = await withServers([await startServer({ kind: 'lectern', dataDir: replicaDir(), env })], (s) => measured(s.map((x) => x.port), paths, plan))
  const perRequest = ((await transactions(env.DATABASE_URL)) - before) / one.requests
  describe('PostgreSQL, one replica', one, log)
  log(`  PostgreSQL committed ${perRequest.toFixed(4)} transactions per request (start-up, loading the sets, the once-a-second catalogue poll, heartbeats included)`)
  const two = await withServers([await startServer({ kind: 'lectern', dataDir: replicaDir(), env }), await startServer({ kind: 'lectern', dataDir: replicaDir(), env })], (s) => measured(s.map((x) => x.port), paths, plan))
  describe('PostgreSQL, two replicas on one database', two, log)
  const ratio = one.reqPerSec / sqlite.reqPerSec
  return [
    row('PostgreSQL: /v2/context, SQLite one process (baseline) req/s, p50 / p99', `${int(sqlite.reqPerSec)}, ${latency(sqlite.p50Ms)} / ${latency(sqlite.p99Ms)}`),
    row('PostgreSQL: /v2/context, one replica req/s, p50 / p99', `${int(one.reqPerSec)}, ${latency(one.p50Ms)} / ${latency(one.p99Ms)}`),
    row('PostgreSQL: one replica / SQLite', ratio.toFixed(3), `>= ${REPLICA_RATIO}`, ratio >= REPLICA_RATIO),
    row('PostgreSQL: transactions per request, one replica (all it did in the run, start-up included)', perRequest.toFixed(4)),
    row(`PostgreSQL: two replicas on one database req/s (${os.availableParallelism()} cores for both, PostgreSQL and the load)`, `${int(two.reqPerSec)}, ${(two.reqPerSec / one.reqPerSec).toFixed(3)} of one replica`),
  ]
}

async function ingestRows(cluster: PostgresCluster, key: string, plan: PostgresPlan, sqlite: IngestResult | undefined, log: (line: string) => void): Promise<Row[]> {
  const url = await createDatabase(cluster, 'ingest')
  // The ingest runs in this process, whose store reads the key from the environment.
  const saved = process.env.LECTERN_SECRET_KEY
  process.env.LECTERN_SECRET_KEY = key
  let result: IngestResult
  try {
    result = await benchIngest(plan.ingestFiles, plan.seed, url)
  } finally {
    if (saved === undefined) delete process.env.LECTERN_SECRET_KEY
    else process.env.LECTERN_SECRET_KEY = saved
  }
  const rate = result.snippets / (result.totalMs / 1000)
  const against = sqlite ? ` against ${int(sqlite.snippets / (sqlite.totalMs / 1000))} into SQLite` : ''
  log(`  ingest into PostgreSQL: ${int(result.snippets)} snippets from ${result.files} files in ${seconds(result.totalMs)} (${int(rate)} snippets/s${against}); rows insert ${seconds(result.insertMs)}`)
  return [
    row(`PostgreSQL: ingest (git, ${result.files} md files, ${int(result.snippets)} snippets)`, `${int(rate)} snippets/s (${seconds(result.totalMs)})${against}`),
    ...(sqlite ? [row('PostgreSQL: ingest rate / SQLite', (rate / (sqlite.snippets / (sqlite.totalMs / 1000))).toFixed(3))] : []),
  ]
}

/**
 * Two `lectern serve` replicas; an ingest is queued, the replica whose job process runs it is
 * killed (SIGKILL), and the other re-claims the job once the lease lapses and runs it to its end.
 */
async function failoverRows(env: Record<string, string>, seed: number, log: (line: string) => void): Promise<Row[]> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-failover-'))
  const remotes = path.join(tmp, 'remotes')
  commitRepo(path.join(remotes, 'docs'), markdownRepo(FAILOVER_FILES, seed))
  const gitEnv = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `url.file://${remotes}/.insteadOf`, GIT_CONFIG_VALUE_0: 'https://github.com/bench/' }
  const replicas: Array<ResultPromise<{ stdin: 'ignore'; reject: false }>> = []
  const store = await openStore(path.join(tmp, 'bench'), { databaseUrl: env.DATABASE_URL, env })
  try {
    for (let i = 0; i < 2; i++) {
      const port = await freePort()
      const replica = execa('node', [path.join(PROJECT_ROOT, 'bin/run.js'), 'serve', '--port', String(port), '--workers', '1', '--data-dir', path.join(tmp, `replica-${i}`)], { env: { ...env, ...gitEnv }, stdin: 'ignore', reject: false })
      replicas.push(replica)
      await until(async () => (await fetch(`http://127.0.0.1:${port}/api/ready`).catch(() => undefined))?.status === 200, 60_000, 'a replica to be ready')
    }
    const { job } = await submitRepository(store, { sourceKind: 'github', docsRepoUrl: 'https://github.com/bench/docs' }, undefined)
    const running = await until(async () => {
      const seen = await store.jobs.byPk(job.pk)
      return seen?.state === 'running' && seen.runner ? seen : undefined
    }, 60_000, 'the job to run')
    const lineage = ancestors(running.runner!.pid)
    const victim = replicas.find((r) => lineage.includes(r.pid!))
    if (!victim) throw new Error('no replica runs the job')
    victim.kill('SIGKILL')
    const killedAt = performance.now()
    const reclaimed = await until(async () => {
      const seen = await store.jobs.byPk(job.pk)
      if (seen?.state === 'succeeded' && seen.attempts === 1) throw new Error('the job ended before its replica was killed: raise FAILOVER_FILES')
      return seen?.state === 'running' && seen.attempts === 2 ? performance.now() : undefined
    }, 120_000, 'another replica to re-claim the job')
    const done = await until(async () => {
      const seen = await store.jobs.byPk(job.pk)
      if (seen?.state === 'failed') throw new Error(`the re-run failed: ${seen.errorMessage}`)
      return seen?.state === 'succeeded' ? performance.now() : undefined
    }, 120_000, 'the re-run to end')
    log(`  failover: the job re-claimed ${seconds(reclaimed - killedAt)} after the SIGKILL (lease ${DEFAULT_LEASE_MS / 1000} s), ingested to its end ${seconds(done - killedAt)} after it`)
    return [
      row(`PostgreSQL: failover, job re-claimed after its replica's SIGKILL (lease ${DEFAULT_LEASE_MS / 1000} s, the default)`, seconds(reclaimed - killedAt), `<= lease + a sixth (${seconds(DEFAULT_LEASE_MS * (7 / 6))}) + a poll`),
      row('PostgreSQL: failover, library ready after the SIGKILL', seconds(done - killedAt)),
    ]
  } finally {
    for (const replica of replicas) replica.kill('SIGKILL')
    await Promise.all(replicas)
    await store.close()
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

/** The process's ancestors, from /proc. */
function ancestors(pid: number): number[] {
  const parent = Number(/^PPid:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1])
  return parent <= 1 ? [] : [parent, ...ancestors(parent)]
}

async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
