/**
 * GitOps syncs asked for by pushes to the manifest's repository (src/webhooks/): the webhook is
 * answered at once and the sync runs here, in the background. A push is never lost to a sync
 * already under way, which may have read the manifest before it:
 * - pushes while this process syncs for a push make one more sync after it;
 * - a push refused because another sync runs (a manual one, or another replica's) is tried again
 *   every RETRY_MS until that one ends, for up to RETRIES tries; past that the schedule, if set,
 *   catches up.
 */
import type { ForgetSet } from '../library/admin.js'
import type { Store } from '../store/index.js'
import { automaticSync } from './reconcile.js'

const RETRY_MS = 5_000
const RETRIES = 60

type Log = { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }

export class PushSyncs {
  private running: Promise<void> | undefined
  private again = false
  private stopped = false
  private wait: { timer: NodeJS.Timeout; resolve: () => void } | undefined

  constructor(
    private readonly store: Store,
    private readonly log: Log,
    private readonly forget?: ForgetSet,
  ) {}

  /** Asks for a sync; returns at once. */
  request(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.run().finally(() => {
      this.running = undefined
      if (this.again) {
        this.again = false
        this.request()
      }
    })
  }

  /** Stops retrying and waits for a sync under way to end. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.wait) {
      clearTimeout(this.wait.timer)
      this.wait.resolve()
    }
    await this.running
  }

  private async run(): Promise<void> {
    for (let attempt = 0; attempt <= RETRIES && !this.stopped; attempt++) {
      if ((await automaticSync(this.store, 'webhook', this.log, this.forget)) !== 'busy') return
      await new Promise<void>((resolve) => {
        this.wait = { timer: setTimeout(resolve, RETRY_MS), resolve }
      })
      this.wait = undefined
    }
  }
}
