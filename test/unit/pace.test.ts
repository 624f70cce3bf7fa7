/**
 * Jobs give way to requests in flight (src/jobs/pace.ts): the serving side counts its requests in
 * shared memory from arrival to the response's close, and a job's pace pauses after a stretch of
 * work only while that count is above zero. Asserted by what resolves when, not by timings.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { MAX_PAUSE_MS, pacer, RequestGauge } from '../../src/jobs/pace.js'
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
    const gauge = new RequestGauge()
    const pace = pacer(gauge.memory)
    for (let i = 0; i < 3; i++) {
      work(10)
      expect(await settlesAtOnce(pace())).toBe(true)
    }
  })

  it('with a request in flight, pauses after a stretch of work until the request ends', async () => {
    const gauge = new RequestGauge()
    const pace = pacer(gauge.memory)
    gauge.started()
    await pace()
    work(10)
    const paused = pace()
    expect(await settlesAtOnce(paused)).toBe(false)
    gauge.ended()
    await paused
    expect(gauge.inFlight).toBe(0)
    // The stretch that follows is free again.
    work(10)
    expect(await settlesAtOnce(pace())).toBe(true)
  })

  it('with requests always in flight, still works: each pause ends by itself', async () => {
    const gauge = new RequestGauge()
    const pace = pacer(gauge.memory)
    gauge.started()
    await pace()
    let pauses = 0
    for (let i = 0; i < 3; i++) {
      work(MAX_PAUSE_MS)
      const paused = pace()
      if (!(await settlesAtOnce(paused))) pauses++
      await paused
    }
    expect(pauses).toBe(3)
    expect(gauge.inFlight).toBe(1)
  })
})

describe('the server counts its requests in flight for a job runner that asks', () => {
  it('from arrival to the response, a request cut off by its client included', async () => {
    const requests = new RequestGauge()
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
