/**
 * Jobs give way to requests in flight (issue 11: the clients' p99 while a large repository
 * ingests stays within 1.5x of the same load alone). At nice 19 (priority.ts) the job process gets
 * a core only when requests leave one free, yet on two cores an ingest still raised the clients'
 * p99 1.6 to 2.2 times: the two processes share the CPU caches and memory bandwidth, and answering
 * a request is memory-bound, which no priority changes. So while requests are in flight a job
 * works in stretches and, after each, pauses PAUSE_PER_WORK times as long as it worked (at most
 * MAX_PAUSE_MS), or until no request is in flight: under steady load the job does a quarter of
 * the work it could; with no request in flight a checkpoint is a turn of the event loop, and the
 * job runs at full speed. The clients' p99 during a 2,000-file ingest over the same load alone (50
 * clients on /v2/context, 12 s each, a shared 2-core host, three runs each, measured with jobs on
 * a thread): 1.75-2.13x without pauses, 1.53-1.88x pausing as long as the job worked, 1.13-1.70x
 * pausing three times as long.
 *
 * The serving process counts its requests in flight (RequestGauge) and tells the job process when
 * it turns busy and when it turns idle again; the job process's handlers call the pace (pacer)
 * between documents, batches and index chunks.
 */
import { setTimeout as sleep } from 'node:timers/promises'

/** Awaited by a job between two pieces of work: returns at once, or after a pause for requests. */
export type Pace = () => Promise<void>

/**
 * The pace of a job with no requests to give way to (the CLI, the in-process worker), and of any
 * job while none is in flight: one turn of the event loop, so that a stop, a cancel's poll and
 * the job process's messages are taken between two pieces of work.
 */
export const nextTurn: Pace = () => new Promise((resolve) => setImmediate(resolve))

/** How much longer than a stretch of work the pause after it is. */
const PAUSE_PER_WORK = 3
/** The longest pause after one stretch of work: a long stretch (an index chunk) is not made up for. */
export const MAX_PAUSE_MS = 100
/** Stretches shorter than this go on: a pause shorter than a timer's resolution gives nothing back. */
const MIN_STRETCH_MS = 2
/** How often a pause looks whether the last request in flight has ended. */
const POLL_MS = 2

/**
 * How long the count of requests in flight stays at zero before the job process is told the server
 * is idle: between two requests of a steady load the job would only get a moment it cannot use,
 * and each turn costs the serving process a message.
 */
export const IDLE_AFTER_MS = 3

/**
 * The serving side: requests in flight, and whether the job process was last told the server is
 * busy. A message goes out only when that changes, so under a steady load there is none at all.
 */
export class RequestGauge {
  private count = 0
  private busy = false
  private idleCheck: NodeJS.Timeout | undefined

  /** `tell(busy)`: the server turned busy (a request arrived while idle) or idle. */
  constructor(private readonly tell: (busy: boolean) => void) {}

  started(): void {
    this.count++
    if (this.busy) return
    this.busy = true
    this.tell(true)
  }

  ended(): void {
    if (--this.count > 0 || this.idleCheck) return
    this.idleCheck = setTimeout(() => {
      this.idleCheck = undefined
      if (this.count > 0 || !this.busy) return
      this.busy = false
      this.tell(false)
    }, IDLE_AFTER_MS)
    this.idleCheck.unref()
  }

  get inFlight(): number {
    return this.count
  }
}

/** The job side: the pace of a job that gives way while `busy()` says requests are in flight. */
export function pacer(busy: () => boolean): Pace {
  // When the current stretch of work began; undefined while no request is in flight.
  let from: number | undefined
  return async () => {
    if (!busy()) {
      from = undefined
      return nextTurn()
    }
    const now = performance.now()
    if (from === undefined) from = now
    const worked = now - from
    if (worked < MIN_STRETCH_MS) return nextTurn()
    const until = now + Math.min(worked * PAUSE_PER_WORK, MAX_PAUSE_MS)
    while (busy() && performance.now() < until) await sleep(POLL_MS)
    from = busy() ? performance.now() : undefined
  }
}
