/**
 * A health prober on its own thread, so its timings do not wait on the load generator's event
 * loop: GET /api/health and /api/ready in turn, one at a time, every PAUSE_MS, until told to
 * stop; then it posts every sample.
 */
import { parentPort, workerData } from 'node:worker_threads'

export interface ProbeSample {
  path: string
  /** ms since the prober started. */
  atMs: number
  ms: number
  status: number
}

const PAUSE_MS = 20
const TIMEOUT_MS = 10_000
const { base } = workerData as { base: string }
const samples: ProbeSample[] = []
let stopping = false
parentPort!.once('message', () => {
  stopping = true
})

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
parentPort!.postMessage(samples)
