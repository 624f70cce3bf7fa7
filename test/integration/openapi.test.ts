/**
 * OpenAPI sources end to end over HTTP: specs added by URL and uploaded as multipart are
 * ingested by the worker and answer questions with the right operation first; bad sources fail
 * their job with a clear reason and serve nothing.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ContextResponse } from '../../src/index/render.js'
import { requireJob } from '../../src/store/jobs.js'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { PETSHOP_YAML, PETSTORE_JSON, serveOpenApiFixtures } from '../helpers/openapi-fixtures.js'
import { pollUntil } from '../helpers/poll.js'
import { signIn } from '../helpers/session.js'
import { suiteTeardown, tmpDataDir } from '../helpers/tmp.js'
import { sqliteOf } from '../../src/store/index.js'

const defer = suiteTeardown()
let app: FastifyInstance
let key: string
let base: string
/** The fixture server's host as it appears in library IDs: `127.0.0.1-<port>`. */
let hostSlug: string

beforeAll(async () => {
  base = await serveOpenApiFixtures(defer)
  hostSlug = new URL(base).host.replace(':', '-')
  app = await buildTestApp({ defer })
  key = await createKey(app)
})

function addByUrl(openApiUrl: string) {
  return app.inject({ method: 'POST', url: '/api/v2/add/openapi', headers: { authorization: `Bearer ${key}` }, payload: { openApiUrl } })
}

/** A multipart/form-data body built by hand, the way curl -F sends it. */
function upload(file: { name: string; data: Buffer | string }, fields: Record<string, string> = {}) {
  const boundary = '----lectern-test-boundary'
  const parts = Object.entries(fields).map(([name, value]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="openapiFile"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`)
  const payload = Buffer.concat([...parts, head, Buffer.from(file.data), Buffer.from(`\r\n--${boundary}--\r\n`)])
  return app.inject({
    method: 'POST',
    url: '/api/v2/add/openapi-upload',
    headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  })
}

async function context(libraryId: string, query: string): Promise<ContextResponse> {
  const res = await app.inject({ url: '/api/v2/context', query: { libraryId, query, type: 'json' } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** Adds by URL and waits for the job; returns the library ID. */
async function ingestUrl(path: string): Promise<string> {
  const res = await addByUrl(`${base}${path}`)
  expect(res.statusCode, res.body).toBe(200)
  const { libraryName } = res.json() as { libraryName: string }
  await waitForLibrary(app, libraryName)
  return libraryName
}

async function lastJob(libraryId: string) {
  const library = (await app.runtime.store.libraries.byId(libraryId))!
  const version = (await app.runtime.store.libraries.version(library.pk, ''))!
  const pk = (sqliteOf(app.runtime.store).prepare('SELECT max(pk) FROM jobs WHERE version_pk = ?').pluck().get(version.pk) as number)
  return { version, job: await requireJob(app.runtime.store.jobs, pk) }
}

describe('adding an OpenAPI spec by URL', () => {
  it('names the library after host and path and answers with the right operation first', async () => {
    const res = await addByUrl(`${base}/petshop.yaml`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ libraryName: `/docs/${hostSlug}-petshop`, message: expect.stringContaining('submitted') })
    const version = await waitForLibrary(app, `/docs/${hostSlug}-petshop`)
    expect(version, version.errorMessage ?? '').toMatchObject({ state: 'finalized' })
    expect(await app.runtime.store.libraries.byId(`/docs/${hostSlug}-petshop`)).toMatchObject({ title: 'Acme Pet Shop API', sourceKind: 'openapi' })

    const answer = await context(`/docs/${hostSlug}-petshop`, 'how do I create a pet')
    const [first] = answer.codeSnippets
    expect(first.codeTitle).toBe('POST /pets: Create a pet')
    expect(first.codeId).toBe(`${base}/petshop.yaml#createPet`)
    const curl = first.codeList[0].code
    expect(curl).toContain('curl -X POST "https://api.acmeshop.example/v3/pets"')
    expect(curl).toContain('-H "Authorization: Bearer $API_TOKEN"')
    expect(JSON.parse(/-d '([\s\S]*)'$/.exec(curl)![1])).toMatchObject({ name: 'Rex', species: 'dog', categoryId: 7 })
    expect(first.codeList[1].language).toBe('json')

    const cancel = await context(`/docs/${hostSlug}-petshop`, 'cancel an order and refund the customer')
    expect(cancel.codeSnippets[0].codeTitle).toBe('DELETE /orders/{orderId}: Cancel an order')
  })

  it('ingests a Swagger 2.0 spec served as JSON', async () => {
    const id = await ingestUrl('/petstore.json')
    expect(id).toBe(`/docs/${hostSlug}-petstore`)
    const [first] = (await context(id, 'how do I add a new pet to the store')).codeSnippets
    expect(first.codeTitle).toBe('POST /pet: Add a new pet to the store')
    expect(first.codeList[0].code).toContain('-H "api_key: $API_KEY"')
    expect(first.codeList[0].code).toContain('"https://petstore.example.com/v2/pet"')
  })

  it('ingests a spec of cyclic schemas fast', async () => {
    const started = Date.now()
    const id = await ingestUrl('/tangled.json')
    expect((await lastJob(id)).version.state).toBe('finalized')
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('refuses a URL that is not http(s) and needs an API key', async () => {
    expect((await addByUrl('ftp://example.com/spec.yaml')).json()).toMatchObject({ error: 'validation_error' })
    const anonymous = await app.inject({ method: 'POST', url: '/api/v2/add/openapi', payload: { openApiUrl: `${base}/petshop.yaml` } })
    expect(anonymous.statusCode).toBe(401)
  })

  it.each([
    // Context answers a reason clients can act on with its own code, any other with processing_failed.
    ['an unreachable host', 'http://127.0.0.1:9/spec.yaml', 'source_unreachable', /ECONNREFUSED/, 'source_unreachable'],
    ['a 404', '/missing.yaml', 'source_unreachable', /answered 404/, 'source_unreachable'],
    ['an HTML page', '/docs', 'validation_error', /HTML page, not an OpenAPI spec/, 'processing_failed'],
    ['an invalid spec', '/invalid.yaml', 'validation_error', /is invalid: #\/info must have required property 'version'/, 'processing_failed'],
  ])('fails the job for %s and serves nothing', async (_what, url, code, message, served) => {
    const res = await addByUrl(url.startsWith('/') ? `${base}${url}` : url)
    expect(res.statusCode, res.body).toBe(200)
    const { libraryName } = res.json() as { libraryName: string }
    const version = await waitForLibrary(app, libraryName)
    expect(version).toMatchObject({ state: 'error', errorCode: code })
    expect((await lastJob(libraryName)).job).toMatchObject({ state: 'failed', errorCode: code, errorMessage: expect.stringMatching(message) })
    const answer = await app.inject({ url: '/api/v2/context', query: { libraryId: libraryName, query: 'pets' } })
    expect(answer.statusCode).toBe(500)
    expect(answer.json()).toEqual({ error: served, message: expect.stringContaining(`Library ${libraryName} failed to process`) })
    expect(answer.body).not.toMatch(message)
  })
})

describe('uploading an OpenAPI spec', () => {
  it('saves the file, names the library after the title and re-ingests with force', async () => {
    const res = await upload({ name: 'petshop.yaml', data: PETSHOP_YAML }, { libraryTitle: 'Acme Shop', description: 'The shop API.' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ libraryName: '/docs/acme-shop' })
    expect(await waitForLibrary(app, '/docs/acme-shop')).toMatchObject({ state: 'finalized' })
    expect(await app.runtime.store.libraries.byId('/docs/acme-shop')).toMatchObject({ title: 'Acme Shop', description: 'The shop API.', sourceUrl: 'upload:acme-shop.yaml' })
    const [first] = (await context('/docs/acme-shop', 'how do I create a pet')).codeSnippets
    expect(first).toMatchObject({ codeTitle: 'POST /pets: Create a pet', codeId: 'upload:acme-shop.yaml#createPet' })

    const again = await upload({ name: 'petstore.json', data: PETSTORE_JSON }, { libraryTitle: 'Acme Shop' })
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ error: 'library_exists' })

    const forced = await upload({ name: 'petstore.json', data: PETSTORE_JSON }, { libraryTitle: 'Acme Shop', force: 'true' })
    expect(forced.statusCode, forced.body).toBe(200)
    const job = await pollUntil('the forced job to end', async () => {
      const found = (await lastJob('/docs/acme-shop')).job
      return found.state === 'succeeded' || found.state === 'failed' ? found : undefined
    })
    expect(job).toMatchObject({ state: 'succeeded', payload: { force: true } })
    expect(readdirSync(app.runtime.store.paths.uploads).filter((name) => name.startsWith('acme-shop'))).toEqual(['acme-shop.json'])
    const [swagger] = (await context('/docs/acme-shop', 'how do I add a new pet to the store')).codeSnippets
    expect(swagger).toMatchObject({ codeTitle: 'POST /pet: Add a new pet to the store', codeId: 'upload:acme-shop.json#addPet' })
  })

  it('refuses an upload under the old ID of a renamed library before touching the file that library refreshes from', async () => {
    expect((await upload({ name: 'petshop.yaml', data: PETSHOP_YAML }, { libraryTitle: 'Old Shop' })).statusCode).toBe(200)
    expect(await waitForLibrary(app, '/docs/old-shop')).toMatchObject({ state: 'finalized' })
    const renamed = await app.inject({ method: 'PATCH', url: '/api/libraries/docs/old-shop', cookies: await signIn(app), payload: { id: '/docs/shop-core' } })
    expect(renamed.statusCode, renamed.body).toBe(200)
    const saved = path.join(app.runtime.store.paths.uploads, 'old-shop.yaml')
    const before = readFileSync(saved)
    for (const force of [{}, { force: 'true' }] as Array<Record<string, string>>) {
      const again = await upload({ name: 'other.yaml', data: PETSTORE_JSON }, { libraryTitle: 'Old Shop', ...force })
      expect(again.statusCode, again.body).toBe(409)
      expect(again.json()).toMatchObject({ error: 'library_exists', message: expect.stringContaining('renamed to /docs/shop-core') })
    }
    expect(readFileSync(saved).equals(before)).toBe(true)
    expect(await app.runtime.store.libraries.byId('/docs/shop-core')).toMatchObject({ sourceUrl: 'upload:old-shop.yaml' })
    expect(await app.runtime.store.libraries.byId('/docs/old-shop')).toBeUndefined()
  })

  it('names the library after the file when no title is given', async () => {
    const res = await upload({ name: 'Pet Store v2.JSON', data: PETSTORE_JSON })
    expect(res.json()).toMatchObject({ libraryName: '/docs/pet-store-v2' })
    expect(await waitForLibrary(app, '/docs/pet-store-v2')).toMatchObject({ state: 'finalized' })
  })

  it('takes a file of several MB, over the JSON body limit but under the upload cap', async () => {
    const padded = Buffer.concat([Buffer.from(PETSTORE_JSON), Buffer.alloc(9 * 1024 * 1024, 0x20)])
    const res = await upload({ name: 'padded.json', data: padded })
    expect(res.statusCode, res.body).toBe(200)
    expect(await waitForLibrary(app, '/docs/padded')).toMatchObject({ state: 'finalized' })
  })

  it('refuses a file over 10 MB with 413 payload_too_large', async () => {
    const res = await upload({ name: 'huge.json', data: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20) }, { libraryTitle: 'Huge' })
    expect(res.statusCode).toBe(413)
    expect(res.json()).toEqual({ error: 'payload_too_large', message: expect.stringContaining('10 MB') })
    expect(await app.runtime.store.libraries.byId('/docs/huge')).toBeUndefined()
  })

  it('refuses a request without the file part', async () => {
    const boundary = 'x'
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/add/openapi-upload',
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="libraryTitle"\r\n\r\nNo file\r\n--${boundary}--\r\n`,
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('openapiFile') })
  })

  it('fails the job of a file that is not a spec, with a clear message', async () => {
    const res = await upload({ name: 'notes.txt', data: 'shopping list:\n  - milk\n  - eggs\n' })
    expect(res.statusCode, res.body).toBe(200)
    const version = await waitForLibrary(app, '/docs/notes')
    expect(version).toMatchObject({ state: 'error', errorCode: 'validation_error' })
    expect(version.errorMessage).toMatch(/upload:notes.yaml is not an OpenAPI spec: it has no "openapi" or "swagger" version field/)
  })
})

describe('lectern add openapi', () => {
  it('copies a local file into uploads/ and ingests it with --wait', async () => {
    const dataDir = await tmpDataDir()
    const file = fileURLToPath(new URL('../fixtures/openapi/petshop-3.1.yaml', import.meta.url))
    const result = await runCli(['add', 'openapi', file, '--title', 'Pet Shop', '--wait', '--json', '--data-dir', dataDir])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ libraryName: '/docs/pet-shop', state: 'succeeded' })
    expect(readdirSync(`${dataDir}/uploads`)).toEqual(['pet-shop.yaml'])
  })
})
