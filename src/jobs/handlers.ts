/**
 * The job handlers of every kind, built on one store connection, and the sweep of the snippet
 * sets a job retired. The in-process worker and the worker thread build theirs here, so both
 * run the same jobs the same way.
 */
import type { LecternConfig } from '../config.js'
import type { EmbedderPool } from '../embed/pool.js'
import { failSoftly, type Softly } from '../housekeeping.js'
import { addressGuard } from '../sources/address-guard.js'
import type { HttpClient } from '../sources/http.js'
import type { Store } from '../store/index.js'
import { sweepSets } from '../index/sweep.js'
import type { JobHandlers, JobLog, WorkerOptions } from './worker.js'

/** Retired sets linger this long after a job so in-flight requests can finish reading them. */
const RETIRE_GRACE_MS = 10_000

export interface HandlerServices {
  store: Store
  embedders: EmbedderPool
  http: HttpClient
  config: LecternConfig
  /** Drops what the serving side caches about a snippet set whose files were replaced or removed. */
  forgetSet(setPk: number): void
}

/**
 * The handlers import every source, parser and embedder, about a second of start-up, so they are
 * imported here, when the worker runs its first job, rather than by every process that opens a
 * data directory (a CLI command that only reads, the serving thread of `serve`).
 */
export async function createJobHandlers(s: HandlerServices): Promise<JobHandlers> {
  const [git, source, vectors, bundles, reembed] = await Promise.all([
    import('./git-job.js'),
    import('./source-job.js'),
    import('./vector-rebuild.js'),
    import('../airgap/import.js'),
    import('./reembed.js'),
  ])
  return {
    [git.GIT_JOB]: git.createGitJobHandler(s.store, s.embedders, addressGuard(s.config.mode, s.config.fetch.allow)),
    [source.SOURCE_JOB]: source.createSourceJobHandler(s.store, s.embedders, s.http, s.config.chromium.path),
    [vectors.REBUILD_VECTORS_JOB]: vectors.createVectorRebuildHandler(s.store, s.embedders, s.forgetSet),
    [bundles.IMPORT_JOB]: bundles.createImportJobHandler(s.store, s.embedders),
    [reembed.REEMBED_JOB]: reembed.createReembedHandler(s.store, s.embedders, s.forgetSet),
  }
}

/**
 * The snippet sets a worker tidies: a set a job retired is removed a grace period after the job
 * ends; between jobs, when no set is being built, a `building` set is one a failed job could not
 * drop (a full disk refused the delete) and goes as soon as writing works again. Both fail soft.
 */
export class SetSweeper {
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly softly: Softly

  constructor(
    private readonly store: Store,
    private readonly forgetSet: (setPk: number) => void,
    log: JobLog,
  ) {
    this.softly = failSoftly(log)
  }

  /** The worker options that run this sweeper. */
  get workerOptions(): WorkerOptions {
    return { onJobEnd: () => this.schedule(), betweenJobs: () => this.sweepAbandoned() }
  }

  private schedule(): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      this.softly('sweeping replaced snippet sets', () => sweepSets(this.store, ['retired'], this.forgetSet))
    }, RETIRE_GRACE_MS)
    timer.unref()
    this.timers.add(timer)
  }

  private sweepAbandoned(): void {
    this.softly('removing half-built snippet sets', () => sweepSets(this.store, ['building'], this.forgetSet))
  }

  /** Before the store closes: the next start sweeps what is left. */
  cancel(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }
}
