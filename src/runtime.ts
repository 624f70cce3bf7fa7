/**
 * The composition root: one opened data directory with the services built on it (embedders,
 * retriever, library catalogue, worker). The HTTP server, the MCP stdio server and the CLI
 * commands all start from here, so they behave the same on the same data.
 */
import fs from 'node:fs'
import path from 'node:path'
import { createImportJobHandler, IMPORT_JOB, sweepImportStaging } from './airgap/import.js'
import type { LecternConfig, Mode } from './config.js'
import { EmbedderPool } from './embed/pool.js'
import { createGitJobHandler, GIT_JOB } from './jobs/git-job.js'
import { sweepSets } from './jobs/ingest.js'
import { createSourceJobHandler, SOURCE_JOB } from './jobs/source-job.js'
import { createReembedHandler, REEMBED_JOB } from './jobs/reembed.js'
import { createHttpClient, type HttpClient } from './sources/http.js'
import { checkVectorIndexes, createVectorRebuildHandler, REBUILD_VECTORS_JOB } from './jobs/vector-rebuild.js'
import { Worker, type JobLog } from './jobs/worker.js'
import { jobOfWorkDir } from './paths.js'
import { Retriever } from './search/context.js'
import { LibraryCatalogue } from './search/libraries.js'
import { openStore, type Store } from './store/index.js'
import { UsageRecorder } from './store/usage.js'

export interface RuntimeOptions {
  config: LecternConfig
  log?: JobLog
}

export interface Runtime {
  /** The start-up settings this process resolved (flag > env > lectern.yaml > default). */
  config: LecternConfig
  mode: Mode
  store: Store
  embedders: EmbedderPool
  retriever: Retriever
  catalogue: LibraryCatalogue
  worker: Worker
  usage: UsageRecorder
  /** The HTTP client of every source; guarded against private addresses in cloud mode. */
  http: HttpClient
  close(): Promise<void>
}

/** Retired sets linger this long after a job so in-flight requests can finish reading them. */
const RETIRE_GRACE_MS = 10_000
/** How often counted requests are written to usage_daily. */
const USAGE_FLUSH_MS = 5_000

const silentLog: JobLog = { info: () => {}, warn: () => {}, error: () => {} }

export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const log = options.log ?? silentLog
  const { config } = options
  const store = await openStore(config.dataDir)
  const embedders = new EmbedderPool(store)
  const retriever = new Retriever(store, embedders, log)
  const catalogue = new LibraryCatalogue(store)
  const timers = new Set<NodeJS.Timeout>()
  const sweepRetired = () => sweepSets(store, ['retired'], (pk) => retriever.forgetSet(pk))
  const mode = config.mode
  const http = createHttpClient(mode, config.fetch.allow)
  const handlers = {
    [GIT_JOB]: createGitJobHandler(store, embedders),
    [SOURCE_JOB]: createSourceJobHandler(store, embedders, http, config.chromium.path),
    [REBUILD_VECTORS_JOB]: createVectorRebuildHandler(store, embedders, (pk) => retriever.forgetSet(pk)),
    [IMPORT_JOB]: createImportJobHandler(store, embedders),
    [REEMBED_JOB]: createReembedHandler(store, embedders, (pk) => retriever.forgetSet(pk)),
  }
  const worker = new Worker(store, handlers, log, {
    onJobEnd: () => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        sweepRetired()
      }, RETIRE_GRACE_MS)
      timer.unref()
      timers.add(timer)
    },
  })
  const usage = new UsageRecorder(store.db)
  const usageTimer = setInterval(() => usage.flush(), USAGE_FLUSH_MS)
  usageTimer.unref()
  return {
    config,
    mode,
    http,
    store,
    embedders,
    retriever,
    catalogue,
    worker,
    usage,
    async close() {
      await worker.stop()
      for (const timer of timers) clearTimeout(timer)
      clearInterval(usageTimer)
      usage.flush()
      store.close()
    },
  }
}

/**
 * Start-up housekeeping for the process that owns the data directory (it holds the lock, so no
 * job can be running): drop sets that a killed job left half-built and sets already replaced,
 * remove work directories left behind, and queue a rebuild of any vector index that does not
 * match its set.
 */
export function recoverDataDir(runtime: Runtime, log: JobLog = silentLog): void {
  const swept = sweepSets(runtime.store, ['building', 'retired'], (pk) => runtime.retriever.forgetSet(pk))
  if (swept > 0) log.info({ swept }, 'removed snippet sets left by interrupted or replaced jobs')
  const workDirs = sweepWorkDirs(runtime.store)
  if (workDirs > 0) log.info({ workDirs }, 'removed work directories left by ended jobs')
  const orphans = sweepImportStaging(runtime.store)
  if (orphans > 0) log.info({ orphans }, 'removed staged imports that no job names')
  checkVectorIndexes(runtime.store, (setPk, problem) => {
    runtime.retriever.forgetSet(setPk)
    log.warn({ setPk, problem }, 'vector index does not match its snippet set; queued a rebuild')
  })
}

/**
 * Removes the work directories under `repos/` of jobs that are not running (ended, removed, or
 * queued again to start from nothing); a job still marked running keeps its own, which it
 * clears when it runs. Returns how many were removed.
 */
function sweepWorkDirs(store: Store): number {
  if (!fs.existsSync(store.paths.repos)) return 0
  let removed = 0
  for (const name of fs.readdirSync(store.paths.repos)) {
    const jobPk = jobOfWorkDir(name)
    if (jobPk === undefined || store.jobs.byPk(jobPk)?.state === 'running') continue
    fs.rmSync(path.join(store.paths.repos, name), { recursive: true, force: true })
    removed++
  }
  return removed
}
