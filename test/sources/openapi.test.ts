/**
 * The OpenAPI reader on its own: specs served over real HTTP (3.1 YAML, 3.1 as JSON, Swagger 2.0)
 * or read from uploads/, turned into snippets; and every way a spec can be unusable.
 */
import { writeFile, mkdir } from 'node:fs/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ParsedCodeSnippet, ParsedInfoSnippet, ParsedSnippet } from '../../src/parse/types.js'
import { dataPaths } from '../../src/install/paths.js'
import { HttpClient } from '../../src/sources/http.js'
import { readOpenApi } from '../../src/sources/openapi.js'
import type { FetchedSource, SourceContext } from '../../src/sources/types.js'
import type { Store } from '../../src/store/index.js'
import { PETSHOP_YAML, serveOpenApiFixtures } from '../helpers/openapi-fixtures.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'
import { testParse } from '../helpers/parse.js'
import { ParseThread } from '../../src/jobs/parse-thread.js'

const defer = suiteTeardown()
let base: string
let dataDir: string

beforeAll(async () => {
  base = await serveOpenApiFixtures(defer)
  dataDir = await tmpDir('lectern-openapi-', defer)
})

function context(previousRevision: string | null = null): SourceContext {
  return {
    http: new HttpClient({ retries: 0 }),
    // The reader only needs to know where an SQLite store keeps uploads.
    store: { paths: dataPaths(dataDir), database: { kind: 'sqlite' } } as Store,
    signal: new AbortController().signal,
    parse: testParse(),
    progress: () => {},
    log: () => {},
    previousRevision,
    libraryId: '/test/library',
    tag: '',
    workDir: '',
    connections: INSTALL_CONNECTIONS,
    // A spec is read as it is; no browser renders it.
    chromiumPath: '',
  }
}

const read = (spec: Record<string, unknown>, ctx = context()) => readOpenApi({ type: 'openapi', ...spec }, ctx)
const snippets = (fetched: FetchedSource): ParsedSnippet[] => (fetched.built ?? []).map((b) => b.snippet)
const codeSnippets = (fetched: FetchedSource) => snippets(fetched).filter((s): s is ParsedCodeSnippet => s.kind === 'code')
const infoSnippets = (fetched: FetchedSource) => snippets(fetched).filter((s): s is ParsedInfoSnippet => s.kind === 'info')

function operation(fetched: FetchedSource, anchor: string): ParsedCodeSnippet {
  const found = codeSnippets(fetched).find((s) => s.anchor === anchor)
  if (!found) throw new Error(`no operation ${anchor}`)
  return found
}

/** The JSON after `-d '...'` in a curl example. */
function curlBody(curl: string): unknown {
  const match = /-d '([\s\S]*)'$/.exec(curl)
  return match ? JSON.parse(match[1]) : undefined
}

describe('readOpenApi on an OpenAPI 3.1 spec', () => {
  let fetched: FetchedSource
  beforeAll(async () => {
    fetched = await read({ url: `${base}/petshop.yaml` })
  })

  it('builds one code snippet per operation and info snippets for overview, auth and tags', () => {
    expect(codeSnippets(fetched)).toHaveLength(24)
    expect(infoSnippets(fetched).map((s) => s.anchor)).toEqual([
      'overview', 'auth-bearerAuth', 'auth-apiKeyAuth', 'tag-pets', 'tag-categories', 'tag-orders', 'tag-customers', 'tag-webhooks',
    ])
    expect(fetched.title).toBe('Acme Pet Shop API')
    expect(fetched.description).toBe('Manage the pets, categories, orders and customers of an Acme pet shop.')
    expect(fetched.revision).toMatch(/^[0-9a-f]{64}$/)
    expect(fetched.locate('openapi', 'createPet')).toBe(`${base}/petshop.yaml#createPet`)
  })

  it('gives an operation a runnable curl call with server, auth and a body of the required fields', () => {
    const create = operation(fetched, 'createPet')
    expect(create.title).toBe('POST /pets: Create a pet')
    expect(create).toMatchObject({ breadcrumb: 'pets', pageTitle: 'pets' })
    expect(operation(fetched, 'health')).toMatchObject({ breadcrumb: 'health', pageTitle: 'health' })
    expect(create.description).toContain('Adds a new pet')
    expect(create.description).toContain('Responses: 201 The pet was created; 422 The body is invalid.')
    const [curl, response] = create.codeList
    expect(curl.language).toBe('bash')
    expect(curl.code).toContain('curl -X POST "https://api.acmeshop.example/v3/pets"')
    expect(curl.code).toContain('-H "Authorization: Bearer $API_TOKEN"')
    expect(curl.code).toContain('-H "Content-Type: application/json"')
    expect(curlBody(curl.code)).toMatchObject({ name: 'Rex', species: 'dog', categoryId: 7 })
    expect(response.language).toBe('json')
    const pet = JSON.parse(response.code)
    expect(pet).toMatchObject({ id: 42, name: 'Rex', status: 'available', category: { name: 'Dogs' } })
  })

  it('cuts the Category.parent cycle instead of recursing', () => {
    const category = JSON.parse(operation(fetched, 'getCategory').codeList[1].code)
    expect(category).toMatchObject({ id: 1, name: 'Dogs', children: [] })
    expect(category).not.toHaveProperty('parent')
    // readOnly properties stay out of request bodies.
    expect(curlBody(operation(fetched, 'createCategory').codeList[0].code)).toEqual({ name: 'Dogs', children: [] })
  })

  it('fills path, query and header parameters, picks oneOf alternatives and per-operation security', () => {
    expect(operation(fetched, 'getPet').codeList[0].code).toBe('curl -X GET "https://api.acmeshop.example/v3/pets/42" \\\n  -H "Authorization: Bearer $API_TOKEN"')
    expect(operation(fetched, 'searchPets').codeList[0].code).toContain('/pets/search?q=golden%20retriever"')
    const order = operation(fetched, 'placeOrder')
    expect(order.codeList[0].code).toContain('-H "Idempotency-Key: 3fa85f64-5717-4562-b3fc-2c963f66afa6"')
    expect(curlBody(order.codeList[0].code)).toMatchObject({ items: [{ petId: 42, quantity: 1 }], payment: { method: 'card', token: 'string' } })
    expect(operation(fetched, 'getInventory').codeList[0].code).toContain('-H "X-Shop-Key: $API_KEY"')
    expect(operation(fetched, 'health').codeList[0].code).toBe('curl -X GET "https://api.acmeshop.example/v3/health"')
    expect(operation(fetched, 'uploadPetPhoto').codeList[0].code).toContain(`-F 'file=<binary>'`)
    expect(operation(fetched, 'deletePet').codeList).toHaveLength(1)
    expect(operation(fetched, 'updatePet').description).toContain('- `petId` (path, integer, required): The pet\'s ID.')
  })

  it('describes the API, its auth schemes and its tags', () => {
    const [overview, bearer, apiKey, pets] = infoSnippets(fetched)
    expect(overview.content).toContain('# Acme Pet Shop API (version 3.2.0)')
    expect(overview.content).toContain('- https://api.acmeshop.example/v3: Production')
    expect(bearer.content).toContain('send the header `Authorization: Bearer $API_TOKEN`')
    expect(apiKey.content).toContain('API key in the header "X-Shop-Key"')
    expect(pets.content).toContain('Pets for sale')
    expect(pets.content).toContain('- POST /pets: Create a pet')
  })

  it('reads the same spec served as JSON into the same snippets', async () => {
    const json = await read({ url: `${base}/petshop.json` })
    expect(snippets(json)).toEqual(snippets(fetched))
  })

  it('reports an unchanged spec without parsing it again', async () => {
    const again = await read({ url: `${base}/petshop.yaml` }, context(fetched.revision!))
    expect(again).toMatchObject({ unchanged: true, revision: fetched.revision, documents: [] })
    expect(again.built).toBeUndefined()
  })
})

describe('readOpenApi on a Swagger 2.0 spec', () => {
  it('uses host + basePath, securityDefinitions and body/formData parameters', async () => {
    for (const file of ['petstore.json', 'petstore.yaml']) {
      const fetched = await read({ url: `${base}/${file}` })
      expect(fetched.title).toBe('Swagger Petstore')
      const add = operation(fetched, 'addPet')
      expect(add.codeList[0].code).toContain('curl -X POST "https://petstore.example.com/v2/pet"')
      expect(add.codeList[0].code).toContain('-H "api_key: $API_KEY"')
      expect(curlBody(add.codeList[0].code)).toMatchObject({ name: 'doggie', photoUrls: ['string'], category: { id: 1, name: 'string' } })
      expect(operation(fetched, 'deletePet').codeList[0].code).toContain('-u "$USERNAME:$PASSWORD"')
      expect(operation(fetched, 'uploadFile').codeList[0].code).toContain(`-F 'file=@file'`)
      expect(operation(fetched, 'loginUser').codeList[0].code).toBe('curl -X GET "https://petstore.example.com/v2/user/login?username=string&password=********"')
      expect(operation(fetched, 'loginUser').codeList[1].code).toBe('"logged-in-session-token"')
      expect(operation(fetched, 'findPetsByStatus').codeList[0].code).toContain('status=%5B%22available%22%5D')
    }
  })
})

describe('readOpenApi on hard and broken input', () => {
  it('finishes a spec of mutually referencing schemas quickly', async () => {
    const started = Date.now()
    const fetched = await read({ url: `${base}/tangled.json` })
    expect(codeSnippets(fetched)).toHaveLength(40)
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('reads an uploaded file from uploads/ and names it upload:<name>', async () => {
    await mkdir(dataPaths(dataDir).uploads, { recursive: true })
    await writeFile(`${dataPaths(dataDir).uploads}/shop.yaml`, PETSHOP_YAML)
    const fetched = await read({ file: 'shop.yaml', title: 'My Shop' })
    expect(fetched.title).toBe('My Shop')
    expect(fetched.locate('shop.yaml', 'getPet')).toBe('upload:shop.yaml#getPet')
    await expect(read({ file: '../secret.key' })).rejects.toMatchObject({ code: 'validation_error' })
  })

  it.each([
    ['an HTML page', 'docs', 'validation_error', /answered with an HTML page, not an OpenAPI spec/],
    ['an HTML page sent as text/plain', 'docs.yaml', 'validation_error', /HTML page/],
    ['an invalid spec', 'invalid.yaml', 'validation_error', /is invalid: #\/info must have required property 'version'; #\/paths\/~1things\/get must have required property 'responses'$/],
    ['a 404', 'missing.yaml', 'source_unreachable', /answered 404/],
  ])('refuses %s clearly', async (_what, file, code, message) => {
    const error = await read({ url: `${base}/${file}` }).catch((err: unknown) => err)
    expect(error).toMatchObject({ code })
    expect((error as Error).message).toMatch(message)
  })

  it('fails a spec its parse cannot finish within the budget with timeout, naming the spec', async () => {
    // A budget of a millisecond: the real thread cuts off the validation of the pet shop.
    const hurried = new ParseThread({ budgetMs: 1 })
    try {
      const error = await readOpenApi({ type: 'openapi', url: `${base}/petshop.yaml` }, { ...context(), parse: hurried.forJob(new AbortController().signal) }).catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'timeout', message: `The OpenAPI spec at ${base}/petshop.yaml could not be read: it took over the 0.001 s parse budget.` })
    } finally {
      await hurried.close()
    }
  })

  it('refuses a document that is not OpenAPI, and a spec with neither or both of url and file', async () => {
    await writeFile(`${dataPaths(dataDir).uploads}/notes.yaml`, 'shopping:\n  - milk\n')
    await expect(read({ file: 'notes.yaml' })).rejects.toThrow(/not an OpenAPI spec: it has no "openapi" or "swagger" version field/)
    await expect(read({})).rejects.toMatchObject({ code: 'validation_error' })
    await expect(read({ url: `${base}/petshop.yaml`, file: 'shop.yaml' })).rejects.toMatchObject({ code: 'validation_error' })
  })
})
