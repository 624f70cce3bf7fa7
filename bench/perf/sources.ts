/**
 * Source throughput: crawling a local 2,000-page documentation site, and ingesting a 5 MB
 * OpenAPI spec, each through the real submit + worker path against a real HTTP server on
 * 127.0.0.1. Both generate their content deterministically.
 */
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { submitOpenApiUrl } from '../../src/jobs/submit-openapi.js'
import { submitSource } from '../../src/jobs/submit.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { resolveConfig } from '../../src/config.js'
import { websiteSubmission } from '../../src/sources/website.js'

export interface SourcesResult {
  pages: number
  crawlMs: number
  crawlSnippets: number
  specBytes: number
  operations: number
  openApiMs: number
  openApiSnippets: number
}

const PAGES = 2000
const HUBS = 50
const WORDS = 'router hook plugin schema stream socket cache cookie session token header body query param error status redirect timeout retry proxy upload buffer encode decode parse render template logger config option handler'.split(' ')

/** Letters only: the crawler caps URLs that differ only in digits (crawl traps), which real docs paths rarely are. */
const letters = (n: number) => {
  let s = ''
  do {
    s = String.fromCharCode(97 + (n % 26)) + s
    n = Math.floor(n / 26) - 1
  } while (n >= 0)
  return s
}

const word = (i: number) => WORDS[i % WORDS.length]

function pageHtml(i: number): string {
  const topic = `${word(i)} ${word(i * 7 + 3)}`
  return `<!doctype html><html><head><title>${topic} (${letters(i)})</title></head><body>
<nav><a href="/">Home</a> <a href="/hub/${letters(i % HUBS)}.html">Section</a></nav>
<main><h1>Using the ${topic}</h1>
<p>The ${topic} API lets an application ${word(i + 1)} a ${word(i + 2)} before the ${word(i + 3)} completes, with a configurable ${word(i + 4)}.</p>
<h2>Configure the ${word(i)}</h2><p>Pass the options object when you create the ${word(i)}; unknown keys are rejected with a clear error.</p>
<pre><code class="language-js">const ${word(i)} = create${word(i)[0].toUpperCase()}${word(i).slice(1)}({ ${word(i + 5)}: true, limit: ${i % 100} })</code></pre>
<h2>Handle errors</h2><p>Errors from the ${word(i + 6)} carry a code; retry only the ones marked retryable.</p>
<pre><code class="language-python">try:\n    ${word(i)}.run()\nexcept ${word(i + 7).toUpperCase()}Error as err:\n    log(err.code)</code></pre>
</main><footer>Copyright Acme</footer></body></html>`
}

function hubHtml(h: number): string {
  const links: string[] = []
  for (let i = h; i < PAGES; i += HUBS) links.push(`<li><a href="/docs/${letters(i)}.html">${word(i)}</a></li>`)
  return `<!doctype html><html><head><title>Section ${letters(h)}</title></head><body><main><h1>Section ${letters(h)}</h1><p>Pages of this section of the documentation, one per topic.</p><ul>${links.join('')}</ul></main></body></html>`
}

function indexHtml(): string {
  const hubs = Array.from({ length: HUBS }, (_, h) => `<li><a href="/hub/${letters(h)}.html">Section ${letters(h)}</a></li>`)
  return `<!doctype html><html><head><title>Acme docs</title></head><body><main><h1>Acme documentation</h1><p>Every section of the Acme documentation, with guides and API pages.</p><ul>${hubs.join('')}</ul></main></body></html>`
}

/** An OpenAPI 3.1 spec of about `targetBytes`: CRUD operations over many resources with real schemas. */
export function generateSpec(targetBytes: number): { text: string; operations: number } {
  const spec: Record<string, unknown> & { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } } = {
    openapi: '3.1.0',
    info: { title: 'Acme Platform API', version: '1.0.0', description: 'Every resource of the Acme platform.' },
    servers: [{ url: 'https://api.acme.example/v1' }],
    components: { schemas: {}, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } } as never,
    security: [{ bearer: [] }],
    paths: {},
  }
  let operations = 0
  for (let r = 0; JSON.stringify(spec).length < targetBytes; r++) {
    const name = `${word(r)}${letters(r)}`
    const schema = `${name[0].toUpperCase()}${name.slice(1)}`
    spec.components.schemas[schema] = {
      type: 'object',
      required: ['id', 'name'],
      properties: Object.fromEntries([
        ...Array.from({ length: 12 }, (_, p): [string, object] => [`${word(r + p)}${p}`, { type: p % 3 ? 'string' : 'integer', description: `The ${word(r + p)} of the ${word(r)}.` }]),
        ['id', { type: 'string', description: 'Identifier.' }],
        ['name', { type: 'string', description: 'Display name.' }],
        ['parent', { $ref: `#/components/schemas/${schema}` }],
      ]),
    }
    const ref = { $ref: `#/components/schemas/${schema}` }
    const json = (description: string) => ({ description, content: { 'application/json': { schema: ref } } })
    spec.paths[`/${name}`] = {
      get: { operationId: `list${schema}`, summary: `List ${name} items`, tags: [word(r)], responses: { 200: json('The items') } },
      post: { operationId: `create${schema}`, summary: `Create a ${name}`, tags: [word(r)], requestBody: json('The new item'), responses: { 201: json('Created') } },
    }
    spec.paths[`/${name}/{id}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: `get${schema}`, summary: `Get a ${name}`, tags: [word(r)], responses: { 200: json('The item') } },
      put: { operationId: `update${schema}`, summary: `Update a ${name}`, tags: [word(r)], requestBody: json('The item'), responses: { 200: json('Updated') } },
      delete: { operationId: `delete${schema}`, summary: `Delete a ${name}`, tags: [word(r)], responses: { 204: { description: 'Deleted' } } },
    }
    operations += 5
  }
  return { text: JSON.stringify(spec), operations }
}

async function serve(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

async function timedDrain(runtime: Runtime, jobPk: number): Promise<{ ms: number; snippets: number }> {
  const started = performance.now()
  await runtime.worker.drain()
  const job = (await runtime.store.jobs.byPk(jobPk))!
  if (job.state !== 'succeeded') throw new Error(`job ${jobPk} ${job.state}: ${job.errorMessage}`)
  const version = (await runtime.store.libraries.versionByPk(job.versionPk!))!
  return { ms: performance.now() - started, snippets: version.totalSnippets }
}

export async function benchSources(): Promise<SourcesResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-sources-'))
  const runtime = await openRuntime({ config: resolveConfig({ dataDir: dataDir }).config })
  const { text: spec, operations } = generateSpec(5 * 1024 * 1024)
  const site = await serve((req, res) => {
    const url = req.url ?? '/'
    const page = /^\/docs\/([a-z]+)\.html$/.exec(url)
    const hub = /^\/hub\/([a-z]+)\.html$/.exec(url)
    if (url === '/openapi.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(spec)
    if (url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(indexHtml())
    const index = (name: string) => [...name].reduce((n, c) => n * 26 + (c.charCodeAt(0) - 96), 0) - 1
    if (page) return void res.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(index(page[1])))
    if (hub) return void res.writeHead(200, { 'content-type': 'text/html' }).end(hubHtml(index(hub[1])))
    res.writeHead(404).end()
  })
  try {
    const submission = websiteSubmission(`${site.url}/`)
    const crawlJob = (await submitSource(runtime.store, { ...submission, spec: { ...submission.spec, maxPages: PAGES + HUBS + 1 } })).job
    const crawl = await timedDrain(runtime, crawlJob.pk)
    const openApiJob = (await submitOpenApiUrl(runtime.store, { url: `${site.url}/openapi.json` })).job
    const openApi = await timedDrain(runtime, openApiJob.pk)
    return {
      pages: PAGES + HUBS + 1,
      crawlMs: crawl.ms,
      crawlSnippets: crawl.snippets,
      specBytes: spec.length,
      operations,
      openApiMs: openApi.ms,
      openApiSnippets: openApi.snippets,
    }
  } finally {
    await site.close()
    await runtime.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
