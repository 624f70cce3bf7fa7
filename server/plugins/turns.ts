/**
 * Requests take turns on the event loop: a request's handler starts only when its turn comes,
 * one per loop iteration, in arrival order. Answering a question is milliseconds of synchronous
 * work; without turns, every request that arrived together runs back to back in one iteration
 * (50 clients: about a second), so a probe or a newly accepted connection waits behind all of
 * them, and an unlucky connection can wait many rounds. With turns, the loop goes back to its
 * sockets between two requests: probes (which take no turn) answer within one request's time and
 * every request is served in the order it came.
 */
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** Hands out turns in arrival order, one per event-loop iteration. */
export class TurnQueue {
  private readonly waiting: Array<() => void> = []
  private scheduled = false

  /** Resolves when it is this caller's turn; the work that follows runs before the loop moves on. */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve)
      this.schedule()
    })
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    // An immediate scheduled from inside another runs at the next iteration, after the poll phase.
    setImmediate(() => {
      this.scheduled = false
      this.waiting.shift()?.()
      if (this.waiting.length > 0) this.schedule()
    })
  }
}

async function turns(app: FastifyInstance): Promise<void> {
  const queue = new TurnQueue()
  app.addHook('preHandler', async (request) => {
    if (!request.routeOptions.config?.probe) await queue.take()
  })
}

export default fp(turns, { name: 'lectern-turns' })
