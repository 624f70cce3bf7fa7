/**
 * A library whose ingest failed is no debris: search and MCP mark it with its reason's code,
 * /v2/context answers that code's status with a message that says how to retry (never
 * internal_error, never git's stderr, clone URLs or server paths), and adding it again retries it.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { ERROR_CODES } from '../../src/errors.js'
import { addRepo, buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

// A few steps spawn the CLI; on a loaded two-core machine a spawn can take seconds.
vi.setConfig({ testTimeout: 60_000 })

const defer = suiteTeardown()
const GUIDE = { 'docs/guide.md': '# Guide\n\n## Render a widget\n\nMount a widget into an element:\n\n```js\nrender(el, { kind: "gauge" })\n```\n' }
const UNREADABLE_SUMMARY = 'The source (git host, URL) could not be read.'
let app: FastifyInstance
let key: string
let remotes: string

beforeAll(async () => {
  remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(GUIDE, { parent: remotes, name: 'widgets' })
  redirectGitHub(remotes, defer)
  app = await buildTestApp({ defer })
  key = await createKey(app)
  for (const repo of ['widgets', 'gone']) expect((await addRepo(app, key, `https://github.com/acme/${repo}`)).statusCode).toBe(200)
  expect(await waitForLibrary(app, '/acme/widgets')).toMatchObject({ state: 'finalized' })
  expect(await waitForLibrary(app, '/acme/gone')).toMatchObject({ state: 'error', errorCode: 'source_unreachable' })
})

const bearer = () => ({ authorization: `Bearer ${key}` })

/** Nothing of the server's inside: no git output, no clone URL of the local remote, no path. */
function expectNoInternals(text: string): void {
  expect(text).not.toContain(remotes)
  expect(text).not.toMatch(/file:|fatal|git clone|internal_error|\n\s+at /)
}

function expectError(res: LightMyRequestResponse, status: number, error: string): string {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.json()).toEqual({ error, message: expect.any(String) })
  return res.json().message
}

describe('search marks a failed library', () => {
  it('with state error and its reason code; outsiders get the code summary, key holders the reason', async () => {
    const anonymous = await app.inject({ url: '/api/v2/libs/search', query: { libraryName: 'gone' } })
    expect(anonymous.json().results[0]).toMatchObject({ id: '/acme/gone', state: 'error', failure: { error: 'source_unreachable', message: UNREADABLE_SUMMARY } })
    expectNoInternals(anonymous.body)
    const keyed = await app.inject({ url: '/api/v2/libs/search', query: { libraryName: 'gone' }, headers: bearer() })
    expect(keyed.json().results[0].failure).toEqual({ error: 'source_unreachable', message: expect.stringContaining('git clone') })
    const healthy = await app.inject({ url: '/api/v2/libs/search', query: { libraryName: 'widgets' } })
    expect(healthy.json().results[0]).not.toHaveProperty('failure')
  })

  it('in `lectern search`, with the code in the text and the reason under --json', async () => {
    const dataDir = app.lecternOptions.config.dataDir
    const text = await runCli(['search', 'gone', '--data-dir', dataDir])
    expect(text.exitCode, text.stderr).toBe(0)
    const row = text.stdout.split('\n').find((line) => line.startsWith('/acme/gone'))
    expect(row).toMatch(/^\/acme\/gone\s+error: source_unreachable, not searchable\s+0\s/)
    const json = await runCli(['search', 'gone', '--data-dir', dataDir, '--json'])
    expect(JSON.parse(json.stdout).results[0].failure).toEqual({ error: 'source_unreachable', message: expect.stringContaining('git clone') })
  })

  it('in `lectern docs`, with the reason and the commands to run, no REST path', async () => {
    const dataDir = app.lecternOptions.config.dataDir
    const failed = await runCli(['docs', '/acme/gone', 'render', '--data-dir', dataDir])
    expect(failed.exitCode).toBe(ERROR_CODES.source_unreachable.exit)
    expect(failed.stderr).toMatch(/^Error: Library \/acme\/gone failed to process: .*git clone.* Retry with `lectern refresh \/acme\/gone`; `lectern jobs` lists recent failures\. \(source_unreachable\)$/)
    const unknown = await runCli(['docs', '/acme/nothing', 'render', '--data-dir', dataDir])
    expect(unknown.stderr).toBe('Error: Library /acme/nothing not found. Search for it with `lectern search <name>`. (library_not_found)')
    for (const result of [failed, unknown]) expect(result.stderr).not.toContain('/api/')
  })
})

describe('/v2/context of a failed library', () => {
  it('answers its reason code with a message saying how to retry', async () => {
    const message = expectError(await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/gone', query: 'render' } }), 500, 'source_unreachable')
    expect(message).toContain('/acme/gone')
    expect(message).toContain('lectern refresh /acme/gone')
    expectNoInternals(message)
  })

  it('answers processing_failed for a reason a client cannot act on, quoting nothing of it', async () => {
    const { version } = await app.runtime.store.libraries.create({ id: '/acme/crashy', title: 'crashy', sourceKind: 'github', sourceUrl: 'https://github.com/acme/crashy' })
    await app.runtime.store.libraries.setVersionState(version.pk, 'error', { code: 'internal_error', message: "TypeError: cannot read 'x' at /srv/lectern/dist/src/sources/git-reader.js:80" })
    const res = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/crashy', query: 'render' } })
    const message = expectError(res, 500, 'processing_failed')
    expect(message).toMatch(/failed to process.*Retry with POST \/api\/v1\/refresh/)
    expect(res.body).not.toMatch(/TypeError|\/srv\/|internal_error/)
  })
})

describe('MCP on a failed library', () => {
  it('resolve-library-id says it is not searchable and why; query-docs answers with the reason code', async () => {
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    const client = new Client({ name: 'lectern-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
    defer(() => client.close())
    const resolved = (await client.callTool({ name: 'resolve-library-id', arguments: { libraryName: 'gone' } })) as { content: Array<{ text: string }> }
    const text = resolved.content[0].text
    expect(text).toContain('- Library ID: /acme/gone')
    expect(text).toContain(`- State: error (not searchable: processing failed with source_unreachable: ${UNREADABLE_SUMMARY})`)
    expectNoInternals(text)
    const query = (await client.callTool({ name: 'query-docs', arguments: { libraryId: '/acme/gone', query: 'render' } })) as { content: Array<{ text: string }>; isError?: boolean }
    expect(query.isError).toBe(true)
    expect(query.content[0].text).toMatch(/^Library \/acme\/gone failed to process: .*not searchable\.$/)
    expectNoInternals(query.content[0].text)
  })
})

describe('adding a failed library again', () => {
  it('retries a git library as a fresh add; a healthy library still gets 409', async () => {
    expect((await addRepo(app, key, 'https://github.com/acme/late')).statusCode).toBe(200)
    expect(await waitForLibrary(app, '/acme/late')).toMatchObject({ state: 'error', errorCode: 'source_unreachable' })
    await makeGitRepo(GUIDE, { parent: remotes, name: 'late' })
    const again = await addRepo(app, key, 'https://github.com/acme/late')
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json()).toEqual({ libraryName: '/acme/late', message: expect.stringMatching(/^Library \/acme\/late submitted for processing \(job \d+\)\.$/) })
    expect(await waitForLibrary(app, '/acme/late')).toMatchObject({ state: 'finalized', errorCode: null })
    expect((await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/late', query: 'render a widget' } })).statusCode).toBe(200)

    expectError(await addRepo(app, key, 'https://github.com/acme/widgets'), 409, 'library_exists')
  })

  it('retries an llms.txt library the same way', async () => {
    let ready = false
    const site: Server = createServer((request, response) => {
      if (!ready || request.url !== '/llms-full.txt') return void response.writeHead(404).end('not here')
      response.writeHead(200, { 'content-type': 'text/plain' }).end('# Gauges\n\n## Draw a gauge\n\nDraw a gauge with the draw function.\n\n```js\ndraw({ kind: "gauge" })\n```\n')
    })
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
    defer(() => new Promise<void>((resolve) => site.close(() => resolve())))
    const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/llms-full.txt`
    const add = () => app.inject({ method: 'POST', url: '/api/v2/add/llmstxt', headers: bearer(), payload: { llmstxtUrl: url } })

    const first = await add()
    expect(first.statusCode, first.body).toBe(200)
    const id = first.json().libraryName
    expect(await waitForLibrary(app, id)).toMatchObject({ state: 'error' })
    ready = true
    expect((await add()).statusCode).toBe(200)
    expect(await waitForLibrary(app, id)).toMatchObject({ state: 'finalized' })
    expectError(await add(), 409, 'library_exists')
  })
})
