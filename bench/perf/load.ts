/** One autocannon run cycling through distinct request paths (no two neighbours alike, no response cache). */
import autocannon from 'autocannon'

export interface LoadOptions {
  port: number
  paths: string[]
  seconds: number
  connections: number
}

export interface LoadResult {
  reqPerSec: number
  p50Ms: number
  p99Ms: number
  requests: number
  non2xx: number
  errors: number
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let next = 0
  const result = await autocannon({
    url: `http://127.0.0.1:${options.port}`,
    connections: options.connections,
    duration: options.seconds,
    // setupRequest runs before every request; one shared counter walks all paths across connections.
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: options.paths[next++ % options.paths.length] }) }],
  })
  return {
    reqPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }
}
