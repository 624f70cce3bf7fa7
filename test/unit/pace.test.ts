/**
 * Jobs give way to requests in flight (src/jobs/pace.ts): the serving side counts its requests
 * from arrival to the response's close and tells the job process when it turns busy and idle, and
 * a job's pace pauses after a stretch of work only while the server is busy. Asserted by what
 * resolves when, not by timings.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { IDLE_AFTER_MS, MAX_PAUSE_MS, pacer, RequestGauge } from '../../src/jobs/pace.js'
import type { JobRunner } from '../../src/jobs/runner.js'
import { buildTestApp } from '../helpers/app.js'
import { pollUntil } from '../helpers/poll.js'

/** Keeps the thread busy, as a job's stretch of work does. */
function work(ms: number): void {
  for (const end = performance.now() + ms; performance.now() < end; );
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Whether `promise` settles within two turns of the event loop, i.e. without waiting for a timer. */
async function settlesAtOnce(promise: Promise<void>): Promise<boolean> {
  let settled = false
  void promise.then(() => (settled = true))
  await turn()
  await turn()
  return settled
}

describe("a job's pace", () => {
  it('with no request in flight, never pauses, however long the job worked', async () => {
    const pace = pacer(() => false)
    for (let i = 0; i < 3; i++) {
      work(10)
      expect(await settlesAtOnce(pace())).toBe(true)
    }
  })

  it('with a request in flight, pauses after a stretch of work until the server is idle', async () => {
    let busy = true
    const pace = pacer(() => busy)
    await pace()
    work(10)
    const paused = pace()
    expect(await settlesAtOnce(paused)).toBe(false)
    busy = false
    await paused
    // The stretch that follows is free again.
    work(10)
    expect(await settlesAtOnce(pace())).toBe(true)
  })

  it('with requests always in flight, still works: each pause ends by itself', async () => {
    const pace = pacer(() => true)
    await pace()
    let pauses = 0
    for (let i = 0; i < 3; i++) {
      work(MAX_PAUSE_MS)
      const paused = pace()
      if (!(await settlesAtOnce(paused))) pauses++
      await paused
    }
    expect(pauses).toBe(3)
  })
})

describe('the request gauge tells the job process when the server turns busy or idle', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('once when the first request arrives, once when none was in flight for a moment', () => {
    const told: boolean[] = []
    const gauge = new RequestGauge((busy) => told.push(busy))
    gauge.started()
    gauge.started()
    gauge.ended()
    expect(told).toEqual([true])
    gauge.ended()
    expect(gauge.inFlight).toBe(0)
    // Not at once: the next request of a steady load may be about to arrive.
    vi.advanceTimersByTime(IDLE_AFTER_MS - 1)
    expect(told).toEqual([true])
    vi.advanceTimersByTime(1)
    expect(told).toEqual([true, false])
    gauge.started()
    expect(told).toEqual([true, false, true])
  })

  it('says nothing while requests follow each other closer than the idle delay', () => {
    const told: boolean[] = []
    const gauge = new RequestGauge((busy) => told.push(busy))
    for (let i = 0; i < 5; i++) {
      gauge.started()
      gauge.ended()
      vi.advanceTimersByTime(IDLE_AFTER_MS - 1)
      // The idle check of the first end sees this request in flight and says nothing.
      gauge.started()
      vi.advanceTimersByTime(1)
      gauge.ended()
    }
    expect(told).toEqual([true])
    vi.advanceTimersByTime(IDLE_AFTER_MS)
    expect(told).toEqual([true, false])
  })
})

describe('the server counts its requests in flight for a job runner that asks', () => {
  it('from arrival to the response, a request cut off by its client included', async () => {
    const requests = new RequestGauge(() => {})
    const runner: JobRunner = { isRunning: true, start() {}, wake() {}, stop: async () => {}, drain: async () => {}, requests }
    const app = await buildTestApp({ jobRunner: runner })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as AddressInfo

    const answered = await fetch(`http://127.0.0.1:${port}/api/health`)
    expect(answered.status).toBe(200)
    await pollUntil('the answered request to end', () => (requests.inFlight === 0 ? true : undefined))

    // A body that never finishes arriving keeps its request in flight until the client gives up.
    const hanging = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': '1000' } })
    hanging.on('error', () => {})
    try {
      hanging.write('{"jsonrpc":"2.0",')
      await pollUntil('the request to be in flight', () => (requests.inFlight === 1 ? true : undefined))
    } finally {
      hanging.destroy()
    }
    await pollUntil('the cut-off request to end', () => (requests.inFlight === 0 ? true : undefined))
  })
})
