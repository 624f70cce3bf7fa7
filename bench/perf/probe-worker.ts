/**
 * A health prober on its own thread, so its timings do not wait on the load generator's event
 * loop. It opens its connection first (posting 'warm'), then on 'start' times GET /api/health
 * and /api/ready in turn, one at a time, every PAUSE_MS, and on 'stop' posts every sample.
 */
import { once } from 'node:events'
import { parentPort, workerData } from 'node:worker_threads'

export interface ProbeSample {
  path: string
  /** ms since the prober started timing. */
  atMs: number
  ms: number
  /** 0 when the probe failed or timed out. */
  status: number
}

const PAUSE_MS = 20
const TIMEOUT_MS = 10_000
const port = parentPort!
const { base } = workerData as { base: string }

// Untimed: the first request also loads fetch on this thread and opens the connection.
await (await fetch(`${base}/api/health`)).arrayBuffer()
port.postMessage('warm')
await once(port, 'message')
let stopping = false
port.once('message', () => {
  stopping = true
})

const samples: ProbeSample[] = []
const started = performance.now()
for (let i = 0; !stopping; i++) {
  const path = i % 2 === 0 ? '/api/health' : '/api/ready'
  const at = performance.now()
  let status = 0
  try {
    const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(TIMEOUT_MS) })
    await res.arrayBuffer()
    status = res.status
  } catch {
    status = 0
  }
  samples.push({ path, atMs: at - started, ms: performance.now() - at, status })
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
}
port.postMessage(samples)
