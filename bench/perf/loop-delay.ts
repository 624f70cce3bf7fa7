/**
 * Preloaded into a server under test (`node --import <this file>`): records the main thread's
 * event-loop delay from SIGUSR2 on and, at exit, writes it to LECTERN_BENCH_LOOP_DELAY_FILE as JSON (ms). The
 * bench reads it to say how long one piece of synchronous work held the loop; no product code
 * is involved.
 */
import fs from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'

export interface LoopDelay {
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** CPU time (user + system, all threads) the process used over the same window. */
  cpuMs: number
  /** Stalls of 100 ms or more, measured by a 10 ms timer: when (ms since start) and how long. */
  stalls: Array<{ atMs: number; ms: number }>
}

const out = process.env.LECTERN_BENCH_LOOP_DELAY_FILE
if (out && isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  let started = performance.now()
  let cpu = process.cpuUsage()
  const stalls: LoopDelay['stalls'] = []
  let last = performance.now()
  // The bench signals once the server is ready: start-up work (module loading, migrations) is not what is measured.
  process.on('SIGUSR2', () => {
    histogram.reset()
    stalls.length = 0
    started = performance.now()
    cpu = process.cpuUsage()
  })
  setInterval(() => {
    const now = performance.now()
    if (now - last - 10 >= 100) stalls.push({ atMs: Math.round(last - started), ms: Math.round(now - last - 10) })
    last = now
  }, 10).unref()
  process.on('exit', () => {
    const ms = (ns: number) => ns / 1e6
    const used = process.cpuUsage(cpu)
    const delay: LoopDelay = { p50Ms: ms(histogram.percentile(50)), p99Ms: ms(histogram.percentile(99)), maxMs: ms(histogram.max), cpuMs: (used.user + used.system) / 1000, stalls }
    fs.writeFileSync(out, JSON.stringify(delay))
  })
}
