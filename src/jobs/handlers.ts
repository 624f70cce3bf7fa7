/**
 * The job handlers of every kind, built on one store connection, and the sweep of the snippet
 * sets a job retired. The in-process worker and the job process build theirs here, so both
 * run the same jobs the same way.
 */
import type { LecternConfig } from '../config.js'
import type { EmbedderPool } from '../embed/pool.js'
import { failSoftly, type Softly } from '../install/housekeeping.js'
import { addressGuard } from '../sources/address-guard.js'
import type { HttpClient } from '../sources/http.js'
import type { Store } from '../store/index.js'
import { sweepSets, sweepStrayEngineFiles, sweepStrayVectorFiles } from '../index/sweep.js'
import { IMPORT_JOB, INGEST_JOB, REBUILD_VECTORS_JOB, REEMBED_JOB } from './kinds.js'
import { pruneEndedJobs } from './retention.js'
import type { JobHandler, JobHandlers, JobLog, WorkerOptions } from './worker.js'

/** Retired sets linger this long after a job so in-flight requests can finish reading them. */
const RETIRE_GRACE_MS = 10_000
/** How often a replica on PostgreSQL removes the files of sets another replica's jobs removed. */
export const HOUSEKEEPING_MS = 5 * 60_000

export interface HandlerServices {
  store: Store
  embedders: EmbedderPool
  http: HttpClient
  config: LecternConfig
  /** Drops what the serving side caches about a snippet set whose files were replaced or removed. */
  forgetSet(setPk: number): void
}

/** A handler whose module is imported when the first job of its kind runs. */
function loadedOnFirstJob(load: () => Promise<JobHandler>): JobHandler {
  let handler: Promise<JobHandler> | undefined
  return async (ctx) => (await (handler ??= load()))(ctx)
}

/**
 * The handlers import sources, parsers and embedders, about a second of start-up, so each kind's
 * module is imported when the worker runs the first job of that kind, rather than by every
 * process that opens a data directory (a CLI command that only reads, the serving thread of
 * `serve`), and an ingest job loads only the reader of its own source (sources/registry.ts).
 */
export function createJobHandlers(s: HandlerServices): JobHandlers {
  return {
    [INGEST_JOB]: loadedOnFirstJob(async () =>
      (await import('./source-job.js')).createIngestJobHandler({
        store: s.store,
        embedders: s.embedders,
        http: s.http,
        parser: new (await import('./parse-thread.js')).ParseThread({ budgetMs: s.config.parse.budgetSeconds * 1000 }),
        chromiumPath: s.config.chromium.path,
        guard: addressGuard(s.config.mode, s.config.fetch.allow),
        mode: s.config.mode,
      }),
    ),
    [REBUILD_VECTORS_JOB]: loadedOnFirstJob(async () => (await import('./vector-rebuild.js')).createVectorRebuildHandler(s.store, s.embedders, s.forgetSet)),
    [IMPORT_JOB]: loadedOnFirstJob(async () => (await import('../airgap/import.js')).createImportJobHandler(s.store, s.embedders)),
    [REEMBED_JOB]: loadedOnFirstJob(async () => (await import('./reembed.js')).createReembedHandler(s.store, s.embedders, s.forgetSet)),
  }
}

/**
 * What a worker tidies after and between jobs: a snippet set a job retired is removed a grace
 * period after the job ends; between jobs, a `building` set that no job holds a lease for is one a
 * failed job could not drop (a full disk refused the delete) or a dead runner left, and goes as
 * soon as writing works again; after each job, ended jobs past their retention go (retention.ts).
 * All fail soft.
 *
 * On PostgreSQL several replicas tidy one database: the removal of retired sets and of old jobs
 * runs on one replica at a time (`store.exclusively`; the other skips its turn, there being
 * nothing left for it). And each replica removes, every HOUSEKEEPING_MS, staged imports that no job
 * will read, and the files its data directory holds for sets that are gone: another replica's job removed their rows, and only this
 * replica can remove its own copies.
 */
export class WorkerTidying {
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly softly: Softly
  private housekeeping: NodeJS.Timeout | undefined

  constructor(
    private readonly store: Store,
    private readonly forgetSet: (setPk: number) => void,
    log: JobLog,
  ) {
    this.softly = failSoftly(log)
  }

  /** The worker options that run this tidying. */
  get workerOptions(): WorkerOptions {
    return {
      onJobEnd: async () => {
        this.schedule()
        await this.pruneJobs()
      },
      betweenJobs: () => this.sweepAbandoned(),
    }
  }

  private schedule(): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      void this.softly('sweeping replaced snippet sets', () => this.store.exclusively('sweep-retired-sets', () => sweepSets(this.store, ['retired'], this.forgetSet)))
    }, RETIRE_GRACE_MS)
    timer.unref()
    this.timers.add(timer)
  }

  private sweepAbandoned(): Promise<void> {
    return this.softly('removing half-built snippet sets', () => sweepSets(this.store, ['building'], this.forgetSet))
  }

  private pruneJobs(): Promise<void> {
    return this.softly('removing ended jobs past their retention', () => this.store.exclusively('prune-ended-jobs', () => pruneEndedJobs(this.store)))
  }

  /** On PostgreSQL, starts the tidying every HOUSEKEEPING_MS (the replica that runs jobs calls it). */
  startHousekeeping(): void {
    if (this.store.database.kind !== 'postgres' || this.housekeeping) return
    this.housekeeping = setInterval(() => void this.housekeep(), HOUSEKEEPING_MS)
    this.housekeeping.unref()
  }

  /** Old jobs, once for all replicas; staged imports no job will read; then this replica's files of sets that are gone. */
  async housekeep(): Promise<void> {
    await this.pruneJobs()
    await this.softly('removing orphaned staged imports', async () => {
      const { sweepImportStaging } = await import('../airgap/import.js')
      await sweepImportStaging(this.store)
    })
    await this.softly('removing the files of sets that are gone', async () => {
      await sweepStrayEngineFiles(this.store)
      await sweepStrayVectorFiles(this.store)
    })
  }

  /** Before the store closes: the next start sweeps what is left. */
  cancel(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    clearInterval(this.housekeeping)
    this.housekeeping = undefined
  }
}
