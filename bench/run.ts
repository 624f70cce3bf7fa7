/**
 * `npm run bench`: ingest throughput, crawl and OpenAPI ingest times, /v2/context load against a
 * bare-Fastify baseline at 10k and 1M snippets, MCP overhead over REST, an in-process
 * profile of one request, and how fast `lectern serve` answers its probes under 50 clients,
 * during an ingest and during backups. Prints progress as it goes and a
 * summary table at the end, also written to bench/.work/perf-results.md.
 *
 *   --quick        10k store only, short load runs, smaller profile
 *   --skip-1m      everything except the 1M-snippet store
 *   --processes N  Lectern and the baseline each serve /v2/context from N processes on one
 *                  port (node:cluster, as `lectern serve --workers N`); default 1
 *   --postgres-only  the ingest into SQLite and section 7 alone (PostgreSQL: one and two replicas
 *                  against SQLite, ingest, failover)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ensureCorpus, type Corpus, type CorpusSpec } from './perf/corpus.js'
import { ensureDocsStore } from './perf/docs-store.js'
import { questions } from './perf/docs.js'
import { benchIngest, type IngestResult } from './perf/ingest.js'
import { runPostgresBench } from './perf/postgres.js'
import { runBackupBench } from './perf/backup.js'
import { runImportBench } from './perf/import.js'
import { measureMcpOverhead } from './perf/mcp.js'
import { benchSources } from './perf/sources.js'
import { runLoad, type LoadResult } from './perf/load.js'
import { WORK_DIR } from './perf/paths.js'
import { probeRows, runProbeBench } from './perf/probes.js'
import { profileRequests, type ProfileResult } from './perf/profile.js'
import { benchSetLoad } from './perf/set-load.js'
import { int, latency, markdownTable, median, row, seconds, us, type Row } from './perf/report.js'
import { contextPath, fetchBodySizes, startServer, type RunningServer } from './perf/servers.js'

interface Plan {
  loadSeconds: number
  warmupSeconds: number
  profileRequests: number
  with1m: boolean
  /** Length of each probe scenario's measured window. */
  probeSeconds: number
  /** Processes serving each side of the /v2/context comparison. */
  processes: number
  /** Only what section 7 (PostgreSQL) measures against. */
  postgresOnly: boolean
}

const SEED = 20_240_601
const INGEST_FILES = 2000
const QUESTIONS = 2000
const CONNECTIONS = 8
/** Clients on /api/v2/context, /api/v2/libs/search and /mcp while the probes are timed (issue 9, item 21). */
const PROBE_CLIENTS = 50
const SMALL: CorpusSpec = { name: 'store-10k', libraries: 10, perLibrary: 1000 }
const LARGE: CorpusSpec = { name: 'store-1m', libraries: 1000, perLibrary: 1000 }
/** Issue 11's targets on this machine. */
/** --cache-size of each process for the 1M store: all its libraries fit (bench/RESULTS.md). */
const LARGE_CACHE_BYTES = 5 * 2 ** 30
const TARGETS = { ingestPerSec: 3000, p99Ms: 10, ratio: 1 / 3, mcpOverheadMs: 2 }

const log = (line: string) => console.log(line)

function planOf(args: string[]): Plan {
  const at = args.indexOf('--processes')
  const processes = at === -1 ? 1 : Number(args[at + 1])
  if (!Number.isInteger(processes) || processes < 1) throw new Error(`--processes takes a whole number of 1 or more, not ${args[at + 1]}`)
  const rest = at === -1 ? args : args.filter((_, i) => i !== at && i !== at + 1)
  const unknown = rest.filter((a) => a !== '--quick' && a !== '--skip-1m' && a !== '--postgres-only')
  if (unknown.length > 0) throw new Error(`unknown flag(s): ${unknown.join(' ')} (use --quick, --skip-1m, --processes N, --postgres-only)`)
  const quick = rest.includes('--quick')
  const postgresOnly = rest.includes('--postgres-only')
  return quick
    ? { loadSeconds: 4, warmupSeconds: 1, profileRequests: 1000, with1m: false, probeSeconds: 5, processes, postgresOnly }
    : { loadSeconds: 10, warmupSeconds: 3, profileRequests: 3000, with1m: !rest.includes('--skip-1m'), probeSeconds: 10, processes, postgresOnly }
}

function ingestRows(r: IngestResult): Row[] {
  const rate = r.snippets / (r.totalMs / 1000)
  const rest = r.embedStoreMs - r.embedMs - r.insertMs
  log(`  ${r.snippets} snippets from ${r.files} files in ${seconds(r.totalMs)} (${int(rate)} snippets/s); job: ${r.jobMessage}`)
  log(`  clone ${seconds(r.cloneMs)}, discover+read ${seconds(r.discoverMs)}, parse+tokenize ${seconds(r.parseMs)}, embed ${seconds(r.embedMs)}, rows ${seconds(r.insertMs)}, vector index, engine file+rest ${seconds(rest)}`)
  return [
    row(`Ingest (git, ${r.files} md files, ${int(r.snippets)} snippets)`, `${int(rate)} snippets/s (${seconds(r.totalMs)})`, `>= ${int(TARGETS.ingestPerSec)}/s`, rate >= TARGETS.ingestPerSec),
    row('  clone / discover+read / parse+tokenize', `${seconds(r.cloneMs)} / ${seconds(r.discoverMs)} / ${seconds(r.parseMs)}`),
    row('  embed+store: embed / rows insert / vector index, engine file+rest', `${seconds(r.embedMs)} / ${seconds(r.insertMs)} / ${seconds(rest)}`),
  ]
}

/** Runs autocannon against a server: an untimed warm-up first, then the measured run. */
async function measure(server: RunningServer, paths: string[], plan: Plan): Promise<LoadResult> {
  await runLoad({ port: server.port, paths, seconds: plan.warmupSeconds, connections: CONNECTIONS })
  // Other work on the host skews every figure; the load average says how much to trust them.
  log(`  host load average (1 min) before the run: ${os.loadavg()[0].toFixed(2)} on ${os.availableParallelism()} CPUs`)
  const result = await runLoad({ port: server.port, paths, seconds: plan.loadSeconds, connections: CONNECTIONS })
  const faults = result.non2xx + result.errors > 0 ? `, ${result.non2xx} non-2xx, ${result.errors} errors` : ''
  log(`  ${int(result.reqPerSec)} req/s, p50 ${latency(result.p50Ms)}, p99 ${latency(result.p99Ms)} (${int(result.requests)} requests${faults})`)
  return result
}

async function withServer<T>(server: RunningServer, run: (server: RunningServer) => Promise<T>): Promise<T> {
  try {
    return await run(server)
  } finally {
    await server.stop()
  }
}

async function loadRows(label: string, corpus: Pick<Corpus, 'dataDir' | 'libraryIds'>, asked: string[], plan: Plan, p99Target: boolean, cacheBytes?: number): Promise<Row[]> {
  return loadPathRows(label, corpus, asked.map((q, i) => contextPath(corpus.libraryIds[i % corpus.libraryIds.length], q)), plan, p99Target, cacheBytes)
}

/** `cacheBytes`: Lectern's --cache-size for the run (default: Lectern's own, a quarter of RAM). */
async function loadPathRows(label: string, corpus: Pick<Corpus, 'dataDir' | 'libraryIds'>, paths: string[], plan: Plan, p99Target: boolean, cacheBytes?: number): Promise<Row[]> {
  const cache = cacheBytes ? `--cache-size ${int(cacheBytes / 2 ** 20)} MB` : `--cache-size default, a quarter of ${int(os.totalmem() / 2 ** 20)} MB`
  log(`  Lectern (${label}): ${paths.length} distinct questions over ${corpus.libraryIds.length} libraries, ${CONNECTIONS} connections, ${plan.loadSeconds} s, ${plan.processes} process(es), ${cache}`)
  let rss = 0
  const { lectern, bodyBytes } = await withServer(await startServer({ kind: 'lectern', dataDir: corpus.dataDir, processes: plan.processes, cacheBytes }), async (server) => {
    // One request per library first (serially): maps every vector index and gives the typical answer size.
    const sizes = await fetchBodySizes(server.port, paths.slice(0, Math.max(50, corpus.libraryIds.length)))
    const result = await measure(server, paths, plan)
    rss = server.rssBytes()
    return { bodyBytes: median(sizes), lectern: result }
  })
  log(`  Baseline (bare Fastify route, fixed ${int(bodyBytes)}-byte body, ${plan.processes} process(es))`)
  const baseline = await withServer(await startServer({ kind: 'baseline', bodyBytes, processes: plan.processes }), (server) => measure(server, paths, plan))
  const ratio = lectern.reqPerSec / baseline.reqPerSec
  const p99Pass = p99Target ? lectern.p99Ms <= TARGETS.p99Ms : undefined
  const faults = lectern.non2xx + lectern.errors
  return [
    row(`Context ${label}: Lectern req/s`, `${int(lectern.reqPerSec)}${faults > 0 ? ` (${faults} failed)` : ''}`),
    row(`Context ${label}: Lectern p50 / p99`, `${latency(lectern.p50Ms)} / ${latency(lectern.p99Ms)}`, p99Target ? `p99 <= ${TARGETS.p99Ms} ms` : '', p99Pass),
    row(`Context ${label}: Lectern RSS after the run (all processes)`, `${int(rss / 2 ** 20)} MB (loaded libraries bounded by ${cache})`),
    row(`Context ${label}: baseline req/s, p50 / p99`, `${int(baseline.reqPerSec)}, ${latency(baseline.p50Ms)} / ${latency(baseline.p99Ms)}`),
    row(`Context ${label}: ratio Lectern/baseline req/s`, `${ratio.toFixed(3)} (body ${int(bodyBytes)} B)`, '>= 0.333', ratio >= TARGETS.ratio),
  ]
}

/**
 * What `lectern serve`'s request log (JSON lines at info, its defaults) costs: the same load with
 * and without it, in the same run. The load rows above measure the engine, with no logger.
 */
async function requestLogRows(corpus: Pick<Corpus, 'dataDir'>, paths: string[], plan: Plan): Promise<Row[]> {
  log(`  Lectern (docs) logging every request as \`lectern serve\` does (JSON at info, to /dev/null), next to the same without a log`)
  const run = async (requestLog: boolean) => withServer(await startServer({ kind: 'lectern', dataDir: corpus.dataDir, processes: plan.processes, requestLog }), (server) => measure(server, paths, plan))
  const quiet = await run(false)
  const logged = await run(true)
  return [
    row('Context docs: Lectern with its request log, req/s (p99)', `${int(logged.reqPerSec)} (${latency(logged.p99Ms)}) against ${int(quiet.reqPerSec)} (${latency(quiet.p99Ms)}) without`),
    row('Context docs: request log on / off', (logged.reqPerSec / quiet.reqPerSec).toFixed(3)),
  ]
}

async function mcpRows(corpus: Corpus, asked: string[], requests: number): Promise<Row[]> {
  const pairs = Array.from({ length: requests }, (_, i) => ({ libraryId: corpus.libraryIds[i % corpus.libraryIds.length], question: asked[i % asked.length] }))
  const m = await withServer(await startServer({ kind: 'lectern', dataDir: corpus.dataDir }), (server) => measureMcpOverhead(server.port, pairs))
  const overhead = m.mcpP50Ms - m.restP50Ms
  log(`  ${m.requests} pairs: REST p50 ${m.restP50Ms.toFixed(2)} ms, p99 ${m.restP99Ms.toFixed(2)} ms; MCP p50 ${m.mcpP50Ms.toFixed(2)} ms, p99 ${m.mcpP99Ms.toFixed(2)} ms`)
  return [
    row('MCP tools/call query-docs p50 / p99', `${m.mcpP50Ms.toFixed(2)} ms / ${m.mcpP99Ms.toFixed(2)} ms`),
    row('REST /v2/context (same questions) p50 / p99', `${m.restP50Ms.toFixed(2)} ms / ${m.restP99Ms.toFixed(2)} ms`),
    row('MCP overhead at p50', `${overhead.toFixed(2)} ms`, `< ${TARGETS.mcpOverheadMs} ms`, overhead < TARGETS.mcpOverheadMs),
  ]
}

async function corpusOf(spec: CorpusSpec): Promise<Corpus> {
  const corpus = await ensureCorpus(spec, log)
  const how = corpus.reused ? `reused from ${corpus.dataDir} (built earlier in ${seconds(corpus.buildMs)})` : `built in ${seconds(corpus.buildMs)}`
  log(`  store ${spec.name}: ${int(corpus.snippets)} snippets in ${corpus.libraryIds.length} libraries, ${how}`)
  return corpus
}

function profileRows(label: string, p: ProfileResult): Row[] {
  const sum = p.parts.reduce((total, part) => total + part.us, 0)
  log(`  ${p.requests} requests on ${label}; ranked ${p.fetched.toFixed(1)} candidates, packing kept ${p.packed.toFixed(1)}`)
  for (const part of p.parts) log(`  ${part.name.padEnd(32)} ${us(part.us).padStart(10)}  ${((part.us / sum) * 100).toFixed(1).padStart(5)} %`)
  log(`  ${'sum of parts'.padEnd(32)} ${us(sum).padStart(10)}`)
  log(`  ${'getContext + renderTextBuffer (real)'.padEnd(32)} ${us(p.endToEndUs).padStart(10)}`)
  return [
    ...p.parts.map((part) => row(`Profile (${label}): ${part.name}`, `${us(part.us)} (${((part.us / sum) * 100).toFixed(1)} %)`)),
    row(`Profile (${label}): sum of parts / real getContext+render`, `${us(sum)} / ${us(p.endToEndUs)}`),
    row(`Profile (${label}): candidates / packed per request`, `${p.fetched.toFixed(1)} / ${p.packed.toFixed(1)}`),
  ]
}

async function main(): Promise<void> {
  const plan = planOf(process.argv.slice(2))
  const started = performance.now()
  const rows: Row[] = []
  const asked = questions(QUESTIONS, SEED)

  log(`== 1. Ingest: ${INGEST_FILES} generated Markdown files through git clone + worker`)
  const ingest = await benchIngest(INGEST_FILES, SEED)
  rows.push(...ingestRows(ingest))
  if (plan.postgresOnly) {
    await postgresSection(ingest, asked, plan, rows)
    return finish(rows, '', '', started)
  }

  log('== 1b. Sources: crawl a local 2,000-page site; ingest a 5 MB OpenAPI spec')
  const sources = await benchSources()
  log(`  crawl: ${sources.pages} pages in ${seconds(sources.crawlMs)} (${(sources.pages / (sources.crawlMs / 1000)).toFixed(1)} pages/s), ${int(sources.crawlSnippets)} snippets`)
  log(`  OpenAPI: ${(sources.specBytes / 1024 / 1024).toFixed(1)} MB, ${int(sources.operations)} operations in ${seconds(sources.openApiMs)}, ${int(sources.openApiSnippets)} snippets`)
  rows.push(
    row('Crawl (local site, 2,051 pages, fetch + extract + index)', `${(sources.pages / (sources.crawlMs / 1000)).toFixed(1)} pages/s (${seconds(sources.crawlMs)})`),
    row(`OpenAPI ingest (${(sources.specBytes / 1024 / 1024).toFixed(1)} MB, ${int(sources.operations)} operations)`, `${seconds(sources.openApiMs)} (${int(sources.openApiSnippets)} snippets)`),
  )

  log('== 2a. /v2/context load, 10k snippets')
  const small = await corpusOf(SMALL)
  rows.push(row('Store 10k', `${int(small.snippets)} snippets / ${small.libraryIds.length} libraries`))
  rows.push(...(await loadRows('10k', small, asked, plan, false)))

  log('== 2d. /v2/context load, real documentation (the development corpora of the quality issue)')
  const docs = await ensureDocsStore(QUESTIONS / 2, log)
  if (docs) {
    log(`  store docs: ${int(docs.snippets)} snippets in ${docs.libraryIds.length} libraries, ${docs.reused ? `reused (built earlier in ${seconds(docs.buildMs)})` : `built in ${seconds(docs.buildMs)}`}`)
    rows.push(row('Store docs', `${int(docs.snippets)} snippets / ${docs.libraryIds.length} libraries, ${docs.asked.length} distinct questions`))
    const docsPaths = docs.asked.map((a) => contextPath(a.libraryId, a.question))
    rows.push(...(await loadPathRows('docs', docs, docsPaths, plan, false)))
    rows.push(...(await requestLogRows(docs, docsPaths, plan)))
  }

  log('== 2c. MCP overhead: tools/call query-docs vs REST, one request at a time (10k store)')
  rows.push(...(await mcpRows(small, asked, plan.profileRequests / 2)))

  let profiled = small
  if (plan.with1m) {
    log('== 2b. /v2/context load, 1M snippets')
    const large = await corpusOf(LARGE)
    rows.push(row('Store 1M build', `${int(large.snippets)} snippets / ${large.libraryIds.length} libraries, ${large.reused ? 'reused' : 'built'} (build took ${seconds(large.buildMs)})`))
    // Every process holds the libraries it is asked (each about 3.3 MB here): with 1,000 asked
    // round-robin, the default quarter of RAM would keep dropping and reloading them.
    rows.push(...(await loadRows('1M', large, asked, plan, true, LARGE_CACHE_BYTES * plan.processes)))
    profiled = large
  } else {
    log('== 2b. 1M snippets: skipped (--quick or --skip-1m)')
  }

  log('== 2e. Loading one set of 10,000 snippets into the engine (heads of the rows + its engine file: lexical index, rendered snippets, vectors)')
  const setLoad = await benchSetLoad()
  log(`  ${int(setLoad.snippets)} snippets: ${setLoad.fromFileMs.toFixed(0)} ms from its engine file, ${setLoad.fromRowsMs.toFixed(0)} ms rebuilding it from the rows; ${int(setLoad.bytes / 2 ** 20)} MB in memory`)
  rows.push(
    row(`Set load, ${int(setLoad.snippets)} snippets (median of 5)`, `${setLoad.fromFileMs.toFixed(0)} ms (${int(setLoad.bytes / 2 ** 20)} MB loaded)`, '< 100 ms', setLoad.fromFileMs < 100),
    row('  without its engine file (rebuilt from the rows)', `${setLoad.fromRowsMs.toFixed(0)} ms`),
  )

  const label = plan.with1m ? '1M' : '10k'
  log(`== 3. Profile of one request, in-process (${label} store)`)
  const requests = Array.from({ length: plan.profileRequests }, (_, i) => ({
    libraryId: profiled.libraryIds[i % profiled.libraryIds.length],
    question: asked[i % asked.length],
  }))
  rows.push(...profileRows(label, await profileRequests(profiled.dataDir, requests)))

  log(`== 4. Backup and restore (${label} store), next to tar czf / tar xzf of the same files`)
  const backupTable = await runBackupBench(profiled.dataDir)
  log(backupTable)

  log('== 5. Import, each in a process of its own: a bundle of about 100 MB of snippet JSON (zipped), and a JSON payload just under 100 MB, re-embedded with the hash embedder')
  const importTable = await runImportBench()
  log(importTable)

  log(`== 6. Probes: /api/health and /api/ready timed one at a time, idle, during an ingest, during backups, each with and without ${PROBE_CLIENTS} clients (lectern serve); the load alone and during an ingest three times each`)
  rows.push(...probeRows(await runProbeBench({ seconds: plan.probeSeconds, connections: PROBE_CLIENTS }, log)))

  await postgresSection(ingest, asked, plan, rows)
  finish(rows, `\n\nBackup and restore (${label} store):\n\n${backupTable}`, `\n\nImport:\n\n${importTable}`, started)
}

/** Section 7: PostgreSQL against SQLite in the same run (bench/perf/postgres.ts), on the 10k store. */
async function postgresSection(ingest: IngestResult, asked: string[], plan: Plan, rows: Row[]): Promise<void> {
  log('== 7. PostgreSQL: /v2/context from one replica and from two against SQLite (10k store), ingest into PostgreSQL, failover of a killed replica\'s job')
  const small = await corpusOf(SMALL)
  const paths = asked.map((q, i) => contextPath(small.libraryIds[i % small.libraryIds.length], q))
  rows.push(...(await runPostgresBench(small, paths, ingest, { warmupSeconds: plan.warmupSeconds, loadSeconds: plan.loadSeconds, connections: CONNECTIONS, ingestFiles: INGEST_FILES, seed: SEED }, log)))
}

function finish(rows: Row[], backupTable: string, importTable: string, started: number): void {
  rows.push(row('Host load average (1/5/15 min) at the end', `${os.loadavg().map((l) => l.toFixed(2)).join(' / ')} on ${os.availableParallelism()} CPUs`))
  const table = `${markdownTable(rows)}${backupTable}${importTable}`
  log(`\n== Summary (${seconds(performance.now() - started)} total)\n\n${table}`)
  fs.mkdirSync(WORK_DIR, { recursive: true })
  fs.writeFileSync(path.join(WORK_DIR, 'perf-results.md'), `${table}\n`)
  log(`\nwritten to ${path.join(WORK_DIR, 'perf-results.md')}`)
}

await main()
