/**
 * The composition root: one opened data directory with the services built on it (embedders,
 * retriever, library catalogue, worker). The HTTP server, the MCP stdio server and the CLI
 * commands all start from here, so they behave the same on the same data.
 */
import { pruneAudit } from './audit/log.js'
import fs from 'node:fs'
import path from 'node:path'
import type { LecternConfig, Mode } from './config.js'
import { EmbedderPool } from './embed/pool.js'
import { failSoftly } from './install/housekeeping.js'
import { pruneEndedJobs } from './jobs/retention.js'
import { createJobHandlers, WorkerTidying } from './jobs/handlers.js'
import { removeLegacyLexicalFiles } from './index/set-files.js'
import { sweepSets, sweepStrayEngineFiles, sweepStrayVectorFiles } from './index/sweep.js'
import type { JobRunner } from './jobs/runner.js'
import { JobProcess } from './jobs/job-process.js'
import { addressGuard, type AddressGuard } from './sources/address-guard.js'
import { createHttpClient, type HttpClient } from './sources/http.js'
import { Worker, type JobLog } from './jobs/worker.js'
import { jobOfWorkDir } from './install/paths.js'
import { SetFileRebuilder } from './index/rebuilder.js'
import { Retriever } from './search/context.js'
import { LibraryCatalogue } from './search/libraries.js'
import { openStore, type Store } from './store/index.js'
import { UsageRecorder } from './usage/recorder.js'

/** Where jobs run: on this thread, or in a process of their own (needs the compiled dist/). */
export type JobRunnerKind = 'in-process' | 'process'

export interface RuntimeOptions {
  config: LecternConfig
  log?: JobLog
  /**
   * Default 'in-process'. A JobRunner given here runs the jobs elsewhere (another process of
   * `serve --workers`); this process only relays to it.
   */
  jobRunner?: JobRunnerKind | JobRunner
  /**
   * Called after this process dropped what it cached about a snippet set whose files were
   * replaced or removed, so the other processes serving the data directory drop theirs.
   */
  onSetForgotten?: (setPk: number) => void
  /** A job process (jobRunner 'process') started or stopped taking jobs. */
  onJobsRunning?: (running: boolean) => void
  /**
   * Where an engine file that does not match its rows is rebuilt, and on PostgreSQL a vector index written from stored vectors (default 'in-process'): 'thread'
   * keeps the rebuild off the serving thread (src/index/rebuilder.ts; compiled dist/ only).
   */
  engineRebuild?: 'thread' | 'in-process'
}

export interface Runtime {
  /** The start-up settings this process resolved (flag > env > lectern.yaml > default). */
  config: LecternConfig
  mode: Mode
  store: Store
  embedders: EmbedderPool
  retriever: Retriever
  catalogue: LibraryCatalogue
  worker: JobRunner
  usage: UsageRecorder
  /** Drops what is cached about a set whose files were replaced or removed, here and (onSetForgotten) elsewhere. */
  forgetSet(setPk: number): void
  /** The HTTP client of every source; guarded against private addresses in cloud mode. */
  http: HttpClient
  /** The private-address guard of cloud mode (undefined on-premise), for git remotes. */
  guard: AddressGuard | undefined
  close(): Promise<void>
}

/** How often counted requests are written to usage_daily. */
const USAGE_FLUSH_MS = 5_000

const silentLog: JobLog = { info: () => {}, warn: () => {}, error: () => {} }

export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const log = options.log ?? silentLog
  const { config } = options
  const store = await openStore(config.dataDir, { databaseUrl: config.database.url })
  const embedders = new EmbedderPool(store)
  // The rebuild thread reads the rows through a connection of its own: the SQLite file, or the install's PostgreSQL.
  const rebuilder = options.engineRebuild === 'thread' ? new SetFileRebuilder(store.database.kind === 'sqlite' ? { kind: 'sqlite', file: store.paths.database } : { kind: 'postgres', url: config.database.url }) : undefined
  const retriever = new Retriever(store, embedders, log, 'fused', config.search.cacheSize, rebuilder)
  const catalogue = new LibraryCatalogue(store)
  const forgetSet = (setPk: number) => {
    retriever.forgetSet(setPk)
    options.onSetForgotten?.(setPk)
  }
  const mode = config.mode
  const http = createHttpClient(mode, config.fetch.allow)
  const tidying = new WorkerTidying(store, forgetSet, log)
  const worker: JobRunner =
    typeof options.jobRunner === 'object'
      ? options.jobRunner
      : options.jobRunner === 'process'
        ? new JobProcess({ config, store, log, forgetSet, onRunningChange: options.onJobsRunning })
        : new Worker(store, createJobHandlers({ store, embedders, http, config, forgetSet }), log, { ...tidying.workerOptions, concurrency: config.jobs.concurrency })
  const usage = new UsageRecorder(store)
  const softly = failSoftly(log)
  // Counts the disk refuses stay pending for the next flush.
  const usageTimer = setInterval(() => void softly('writing usage counts', () => usage.flush()), USAGE_FLUSH_MS)
  usageTimer.unref()
  return {
    config,
    mode,
    http,
    guard: addressGuard(mode, config.fetch.allow),
    store,
    embedders,
    retriever,
    catalogue,
    worker,
    usage,
    forgetSet,
    async close() {
      await worker.stop()
      tidying.cancel()
      clearInterval(usageTimer)
      await rebuilder?.close()
      await softly('writing usage counts', () => usage.flush())
      await store.close()
    },
  }
}

/**
 * Start-up housekeeping for the process that owns the data directory (it holds the lock, so no
 * job of this data directory can be running; on PostgreSQL other replicas' jobs may run, and what
 * they build is held by their leases): drop sets that a killed job left half-built and sets already replaced,
* remove work directories left behind, and queue a rebuild of any vector index that does not
 * match its set; delete the usage salts of ended days (src/store/usage-salt.ts). On a full disk
 * the server still starts (reads need none of this); the worker sweeps half-built sets once it
 * can write.
 */
export async function recoverDataDir(runtime: Runtime, log: JobLog = silentLog): Promise<void> {
  // Loaded here, by the one process that recovers the data directory: these modules import the
  // parsers and the tokenizer, which a command that only opens the data directory never needs.
  const [{ sweepImportStaging }, { checkVectorIndexes }] = await Promise.all([import('./airgap/import.js'), import('./jobs/vector-rebuild.js')])
  const softly = failSoftly(log)
  await softly('removing interrupted and replaced snippet sets', async () => {
    // On PostgreSQL another replica's job may have retired a set a moment ago, while that replica's
    // requests still read it: retired sets are left to the sweep after a job's grace period (handlers.ts).
    const statuses: Array<'building' | 'retired'> = runtime.store.database.kind === 'postgres' ? ['building'] : ['building', 'retired']
    const swept = await sweepSets(runtime.store, statuses, (pk) => runtime.forgetSet(pk))
    if (swept > 0) log.info({ swept }, 'removed snippet sets left by interrupted or replaced jobs')
  })
  await softly('removing the lexical index files of an earlier build', () => {
    if (removeLegacyLexicalFiles(runtime.store.paths)) log.info({}, 'removed lexical/: engine files replace its lexical index files')
  })
  await softly('removing stray engine files', async () => {
    const strays = await sweepStrayEngineFiles(runtime.store)
    if (strays > 0) log.info({ strays }, 'removed engine files of sets that are gone, and unfinished writes')
  })
  await softly('removing stray vector files', async () => {
    const strays = await sweepStrayVectorFiles(runtime.store)
    if (strays > 0) log.info({ strays }, 'removed vector files of sets that are gone, vector indexes of hash-embedded sets (their engine files hold their vectors), and unfinished writes')
  })
  await softly('removing deploy keys left by killed git commands', async () => {
    const { sweepStaleSshDirs } = await import('./sources/git-ssh.js')
    const keys = await sweepStaleSshDirs()
    if (keys > 0) log.info({ keys }, 'removed deploy key directories left in the temporary directory by processes that died')
  })
  await softly('removing work directories of ended jobs', async () => {
    const workDirs = await sweepWorkDirs(runtime.store)
    if (workDirs > 0) log.info({ workDirs }, 'removed work directories left by ended jobs')
  })
  await softly('removing orphaned staged imports', async () => {
    const orphans = await sweepImportStaging(runtime.store)
    if (orphans > 0) log.info({ orphans }, 'removed staged imports that no job names')
  })
  await softly('deleting the usage salts of days that have ended', () => runtime.usage.forgetEndedDays())
  await softly('removing ended jobs past their retention', async () => {
    const pruned = await runtime.store.exclusively('prune-ended-jobs', () => pruneEndedJobs(runtime.store))
    if (pruned.ran && pruned.value > 0) log.info({ jobs: pruned.value }, 'removed ended jobs past their retention (jobs.retentionDays)')
  })
  await softly('removing audit events past their retention', async () => {
    const pruned = await pruneAudit(runtime.store)
    if (pruned > 0) log.info({ events: pruned }, 'removed audit events past their retention (audit.retentionDays)')
  })
  await softly('checking vector indexes', () =>
    checkVectorIndexes(runtime.store, (setPk, problem) => {
      runtime.forgetSet(setPk)
      log.warn({ setPk, problem }, 'vector index does not match its snippet set')
    }),
  )
}

/**
 * Removes the work directories under `repos/` of jobs that are not running (ended, removed, or
 * queued again to start from nothing); a job still marked running keeps its own, which it
 * clears when it runs. Returns how many were removed.
 */
async function sweepWorkDirs(store: Store): Promise<number> {
  if (!fs.existsSync(store.paths.repos)) return 0
  let removed = 0
  for (const name of fs.readdirSync(store.paths.repos)) {
    const jobPk = jobOfWorkDir(name)
    if (jobPk === undefined || (await store.jobs.byPk(jobPk))?.state === 'running') continue
    fs.rmSync(path.join(store.paths.repos, name), { recursive: true, force: true })
    removed++
  }
  return removed
}
