/**
 * Requests take turns on the event loop (server/plugins/turns.ts): handlers run one per loop
 * iteration in arrival order, and probes take no turn, so a probe that arrives behind a crowd
 * of slow requests is answered before them instead of after all of them.
 */
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'

/** Synchronous work, as a retrieval is: nothing else runs on the loop meanwhile. */
function spin(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}

describe('request turns', () => {
  it('serve requests in arrival order and let probes answer before the waiting ones', async () => {
    const app = await buildTestApp({ startWorker: false })
    const handled: string[] = []
    app.runtime.catalogue.search = async (name) => {
      handled.push(name)
      spin(5)
      return []
    }
    const finished: string[] = []
    const request = (url: string, label: string) => app.inject({ url }).then((res) => finished.push(`${label} ${res.statusCode}`))

    const searches = Array.from({ length: 10 }, (_, i) => request(`/api/v2/libs/search?libraryName=lib${i}`, `search ${i}`))
    const probes = [request('/api/health', 'health'), request('/api/ready', 'ready'), request('/ping', 'ping')]
    await Promise.all([...searches, ...probes])

    expect(handled).toEqual(Array.from({ length: 10 }, (_, i) => `lib${i}`))
    // The probes came last and finished while the searches still waited for their turns.
    expect(finished.indexOf('health 200')).toBeLessThan(finished.indexOf('search 1 200'))
    expect(finished.indexOf('ready 200')).toBeLessThan(finished.indexOf('search 1 200'))
    expect(finished.indexOf('ping 200')).toBeLessThan(finished.indexOf('search 1 200'))
    expect(finished.filter((f) => f.startsWith('search'))).toEqual(Array.from({ length: 10 }, (_, i) => `search ${i} 200`))
  })
})
