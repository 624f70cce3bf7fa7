/**
 * The job handlers of every kind, built on one store connection, and the sweep of the snippet
 * sets a job retired. The in-process worker and the worker thread build theirs here, so both
 * run the same jobs the same way.
 */
import { createImportJobHandler, IMPORT_JOB } from '../airgap/import.js'
import type { LecternConfig } from '../config.js'
import type { EmbedderPool } from '../embed/pool.js'
import { failSoftly, type Softly } from '../housekeeping.js'
import { addressGuard } from '../sources/address-guard.js'
import type { HttpClient } from '../sources/http.js'
import type { Store } from '../store/index.js'
import { createGitJobHandler, GIT_JOB } from './git-job.js'
import { sweepSets } from './ingest.js'
import { createReembedHandler, REEMBED_JOB } from './reembed.js'
import { createSourceJobHandler, SOURCE_JOB } from './source-job.js'
import { createVectorRebuildHandler, REBUILD_VECTORS_JOB } from './vector-rebuild.js'
import type { JobHandler, JobLog, WorkerOptions } from './worker.js'

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

export function createJobHandlers(s: HandlerServices): Record<string, JobHandler> {
  return {
    [GIT_JOB]: createGitJobHandler(s.store, s.embedders, addressGuard(s.config.mode, s.config.fetch.allow)),
    [SOURCE_JOB]: createSourceJobHandler(s.store, s.embedders, s.http, s.config.chromium.path),
    [REBUILD_VECTORS_JOB]: createVectorRebuildHandler(s.store, s.embedders, s.forgetSet),
    [IMPORT_JOB]: createImportJobHandler(s.store, s.embedders),
    [REEMBED_JOB]: createReembedHandler(s.store, s.embedders, s.forgetSet),
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
