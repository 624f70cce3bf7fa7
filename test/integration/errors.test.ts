/**
 * Every status and error code a client can reach over HTTP, each with the exact body shape of
 * spec 2.4: `{error, message}`, plus `redirectUrl` on a 301 and nothing else.
 */
import { rmSync } from 'node:fs'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { DEFAULT_EMBEDDING, saveEmbedding } from '../../src/embed/pool.js'
import { LIMITS } from '../../src/index/build.js'
import { renameLibrary } from '../../src/library/admin.js'
import type { JobRunner } from '../../src/jobs/runner.js'
import { engineFilePath, vectorIndexPath } from '../../src/install/paths.js'
import { addRepo, buildTestApp, createKey, seedLibrary, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { signIn } from '../helpers/session.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { ollamaStandIn } from '../airgap/ollama-standin.js'
import { sqlOf } from '../../src/store/index.js'

const defer = suiteTeardown()
let app: FastifyInstance
let key: string
let remotes: string

const GUIDE = {
  'docs/guide.md': '# Guide\n\n## Render a widget\n\nMount a widget into an element:\n\n```js\nrender(el, { kind: "gauge" })\n```\n',
}

beforeAll(async () => {
  remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(GUIDE, { parent: remotes, name: 'widgets' })
  await makeGitRepo({ LICENSE: 'MIT License\n\nPermission is hereby granted, free of charge.\n' }, { parent: remotes, name: 'license-only' })
  await makeGitRepo(
    { 'docs/a.md': '# A\n\n```js\na()\n```\n\n## B\n\n```js\nb()\n```\n\n## C\n\n```js\nc()\n```\n' },
    { parent: remotes, name: 'huge' },
  )
  redirectGitHub(remotes, defer)
  app = await buildTestApp({ defer })
  key = await createKey(app)
  expect((await addRepo(app, key, 'https://github.com/acme/widgets')).statusCode).toBe(200)
  expect(await waitForLibrary(app, '/acme/widgets')).toMatchObject({ state: 'finalized' })
})

/** Asserts an error response: its status, its code, and a body of exactly the spec's fields. */
function expectError(res: LightMyRequestResponse, status: number, error: string, extra: Record<string, unknown> = {}): string {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
  const body = res.json()
  expect(body).toEqual({ error, message: expect.any(String), ...extra })
  expect(body.message.length).toBeGreaterThan(10)
  return body.message
}

const context = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  app.inject({ url: '/api/v2/context', query, headers })
const search = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  app.inject({ url: '/api/v2/libs/search', query, headers })
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe('400', () => {
  it.each(['widgets', '/acme', '/acme/widgets/v1/extra', '/acme/wid gets', '/acme/../etc', '/acme/widgets@'])(
    'invalid_library_id for %j',
    async (libraryId) => {
      expectError(await context({ libraryId, query: 'render' }), 400, 'invalid_library_id')
    },
  )

  it.each([
    ['a missing query', { libraryId: '/acme/widgets' }, 'Query parameter query is required.'],
    ['a missing libraryId', { query: 'render' }, 'Query parameter libraryId is required.'],
    ['an empty libraryId', { libraryId: '', query: 'render' }, 'Query parameter libraryId must not be empty.'],
    ['an empty query', { libraryId: '/acme/widgets', query: '' }, 'The question (query) has no words'],
    ['a query of spaces alone', { libraryId: '/acme/widgets', query: ' \t ' }, 'The question (query) has no words'],
    ['a query of punctuation alone', { libraryId: '/acme/widgets', query: '???' }, 'The question (query) has no words'],
    ['a query of a zero-width space', { libraryId: '/acme/widgets', query: '\u200b' }, 'The question (query) has no words'],
    ['an empty query on an unknown library', { libraryId: '/acme/nothing', query: '' }, 'The question (query) has no words'],
    ['a query too long', { libraryId: '/acme/widgets', query: 'x'.repeat(501) }, 'Query parameter query must be at most 500 characters.'],
    ['tokens below the minimum', { libraryId: '/acme/widgets', query: 'render', tokens: '100' }, 'Query parameter tokens must be at least 500.'],
    ['tokens above the maximum', { libraryId: '/acme/widgets', query: 'render', tokens: '60000' }, 'Query parameter tokens must be at most 50000.'],
    ['tokens that are not a number', { libraryId: '/acme/widgets', query: 'render', tokens: 'many' }, 'Query parameter tokens must be a whole number'],
    // Numbers in a URL are decimal digits: JavaScript's other spellings of 500 and 600 are refused.
    ['tokens in hexadecimal', { libraryId: '/acme/widgets', query: 'render', tokens: '0x1F4' }, 'Query parameter tokens must be a whole number in decimal digits, not "0x1F4".'],
    ['tokens after a space', { libraryId: '/acme/widgets', query: 'render', tokens: ' 600' }, 'Query parameter tokens must be a whole number in decimal digits, not " 600".'],
    ['tokens in exponent form', { libraryId: '/acme/widgets', query: 'render', tokens: '1e3' }, 'Query parameter tokens must be a whole number in decimal digits, not "1e3".'],
    ['tokens with a leading zero', { libraryId: '/acme/widgets', query: 'render', tokens: '0600' }, 'Query parameter tokens must be a whole number in decimal digits, not "0600".'],
    ['an unknown type', { libraryId: '/acme/widgets', query: 'render', type: 'xml' }, 'Query parameter type must be one of: "json", "txt".'],
  ])('validation_error on context for %s', async (_, query, message) => {
    expect(expectError(await context(query), 400, 'validation_error')).toContain(message)
  })

  it('validation_error on a path parameter that is a number in another spelling', async () => {
    const cookies = await signIn(app)
    for (const id of ['0x1', '1e0', '01']) {
      expect(expectError(await app.inject({ url: `/api/jobs/${id}`, cookies }), 400, 'validation_error')).toBe(`Path parameter id must be a whole number in decimal digits, not "${id}".`)
    }
  })

  it('validation_error on search without libraryName', async () => {
    expectError(await search({ query: 'render a widget' }), 400, 'validation_error')
  })

  it.each([
    ['no docsRepoUrl', { private: true }],
    ['a docsRepoUrl that is not a repository URL', { docsRepoUrl: 'not a url' }],
    ['a docsRepoUrl with credentials', { docsRepoUrl: 'https://user:secret@github.com/acme/widgets' }],
    ['a wrong field type', { docsRepoUrl: 'https://github.com/acme/other', private: 'maybe' }],
  ])('validation_error on add for %s', async (_, payload) => {
    const res = await app.inject({ method: 'POST', url: '/api/v2/add/repo/github', headers: bearer(key), payload })
    const message = expectError(res, 400, 'validation_error')
    expect(message).not.toContain('secret')
  })

  it('validation_error on add for a body that is not JSON', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/add/repo/github',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: '{"docsRepoUrl": ',
    })
    expectError(res, 400, 'validation_error')
  })

  it('validation_error, not 415, on add for a form-encoded body', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/add/repo/github',
      headers: { ...bearer(key), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'docsRepoUrl=https%3A%2F%2Fgithub.com%2Facme%2Fwidgets',
    })
    expectError(res, 400, 'validation_error')
  })

  it('validation_error on add for an unknown source kind', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v2/add/repo/svn', headers: bearer(key), payload: { docsRepoUrl: 'https://github.com/acme/x' } })
    expectError(res, 400, 'validation_error')
  })
})

describe('401 invalid_api_key', () => {
  const revokedKey = async () => {
    const created = await app.runtime.store.keys.create('revoked')
    await app.runtime.store.keys.revoke(created.id)
    return created.key
  }
  const badHeaders: Array<[string, () => Record<string, string> | Promise<Record<string, string>>]> = [
    ['a malformed key', () => bearer('not-a-key')],
    ['a key of the right shape that does not exist', () => bearer(`lct_${'A'.repeat(40)}`)],
    ['a revoked key', async () => bearer(await revokedKey())],
    ['another scheme', () => ({ authorization: 'Basic dXNlcjpwYXNz' })],
  ]

  it.each(badHeaders)('on search with %s', async (_, headers) => {
    expectError(await search({ libraryName: 'widgets' }, await headers()), 401, 'invalid_api_key')
  })

  it.each(badHeaders)('on context with %s', async (_, headers) => {
    expectError(await context({ libraryId: '/acme/widgets', query: 'render' }, await headers()), 401, 'invalid_api_key')
  })

  it.each(badHeaders)('on add with %s', async (_, headers) => {
    const res = await app.inject({ method: 'POST', url: '/api/v2/add/repo/github', headers: await headers(), payload: { docsRepoUrl: 'https://github.com/acme/new' } })
    expectError(res, 401, 'invalid_api_key')
  })

  it('on add without a key, while search works without one', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v2/add/repo/github', payload: { docsRepoUrl: 'https://github.com/acme/new' } })
    expectError(res, 401, 'invalid_api_key')
    expect(await app.runtime.store.libraries.byId('/acme/new')).toBeUndefined()
    expect((await search({ libraryName: 'widgets' })).statusCode).toBe(200)
  })

  it('a valid key is accepted on search', async () => {
    expect((await search({ libraryName: 'widgets' }, bearer(key))).statusCode).toBe(200)
  })
})

describe('404', () => {
  it('library_not_found', async () => {
    expectError(await context({ libraryId: '/acme/nothing-here', query: 'render' }), 404, 'library_not_found')
  })

  it('no_libraries_found', async () => {
    expectError(await search({ libraryName: 'zzqqxxyyvvkk' }), 404, 'no_libraries_found')
  })

  describe('versions', () => {
    beforeAll(async () => {
      const { libraryPk } = await seedLibrary(app, '/acme/widgets', { 'docs/v1.md': '# Version one\n\n## Legacy render\n\n```js\nlegacyRender(el)\n```\n' }, 'v1.0.0')
      await app.runtime.store.libraries.ensureVersion(libraryPk, 'v0.9.0')
    })

    it('tag_not_found lists the available tags', async () => {
      const message = expectError(await context({ libraryId: '/acme/widgets/v2.0.0', query: 'render' }), 404, 'tag_not_found')
      expect(message).toContain('v2.0.0')
      expect(message).toContain('v1.0.0')
      expect(message).toContain('v0.9.0')
    })

    it.each(['/acme/widgets/v1.0.0', '/acme/widgets@v1.0.0', '/acme/widgets@1.0.0'])('the pin %s resolves to that version', async (libraryId) => {
      const res = await context({ libraryId, query: 'legacy render', type: 'json' })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().codeSnippets.map((s: { codeList: Array<{ code: string }> }) => s.codeList[0].code)).toEqual(['legacyRender(el)'])
    })

    it('a version whose job has not run answers 202 library_not_finalized', async () => {
      expectError(await context({ libraryId: '/acme/widgets@v0.9.0', query: 'render' }), 202, 'library_not_finalized')
    })

    it('search lists the versions', async () => {
      const [widgets] = (await search({ libraryName: '/acme/widgets' })).json().results
      expect([...widgets.versions].sort()).toEqual(['v0.9.0', 'v1.0.0'])
    })
  })

  it('no_snippets_found when nothing matches and the vector index is missing', async () => {
    // With a vector index, k-NN always returns neighbours; without it (derived data, rebuilt at
    // start-up) BM25 alone answers, and a question with no indexed word finds nothing. The set is
    // embedded by Ollama (a loopback stand-in): a hash-embedded set has no vector index.
    const ollama = await ollamaStandIn(16)
    onTestFinished(async () => {
      await saveEmbedding(app.runtime.store, DEFAULT_EMBEDDING)
      await ollama.close()
    })
    await saveEmbedding(app.runtime.store, ollama.settings)
    const { setPk } = await seedLibrary(app, '/acme/sparse', GUIDE)
    rmSync(vectorIndexPath(app.runtime.store.paths, setPk))
    // Nor stored with the rows (a set built before they were): on PostgreSQL the index would be written from them.
    await app.runtime.store.snippets.setVectors(setPk, null)
    expectError(await context({ libraryId: '/acme/sparse', query: 'zeppelin xylophone' }), 404, 'no_snippets_found')
    expect((await context({ libraryId: '/acme/sparse', query: 'render a gauge' })).statusCode).toBe(200)
  })
})

describe('202, 301, 409, 422, 500 and 503 of libraries in every state', () => {
  it('202 library_not_finalized for a library whose job has not run', async () => {
    const idle = await buildTestApp({ startWorker: false })
    const res = await addRepo(idle, await createKey(idle), 'https://github.com/acme/widgets')
    expect(res.statusCode).toBe(200)
    const waiting = await idle.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query: 'render' } })
    expectError(waiting, 202, 'library_not_finalized')
    const [summary] = (await idle.inject({ url: '/api/v2/libs/search', query: { libraryName: 'widgets' } })).json().results
    expect(summary.state).toBe('initial')
  })

  it('301 library_redirected with redirectUrl and no Location header after a rename', async () => {
    await seedLibrary(app, '/acme/old-name', GUIDE)
    await renameLibrary(app.runtime.store, '/acme/old-name', '/acme/new-name')
    const moved = await context({ libraryId: '/acme/old-name', query: 'render' })
    expectError(moved, 301, 'library_redirected', { redirectUrl: '/acme/new-name' })
    expect(moved.headers.location).toBeUndefined()
    const pinned = await context({ libraryId: '/acme/old-name@v2', query: 'render' })
    expectError(pinned, 301, 'library_redirected', { redirectUrl: '/acme/new-name@v2' })
    const renamed = await context({ libraryId: '/acme/new-name', query: 'render' })
    expect(renamed.statusCode, renamed.body).toBe(200)
    // Search has no 301: the old exact ID leads to the library under its new ID.
    expect((await search({ libraryName: '/acme/old-name' })).json().results[0].id).toBe('/acme/new-name')
  })

  it('409 when the same repository is added twice', async () => {
    expectError(await addRepo(app, key, 'https://github.com/acme/widgets'), 409, 'library_exists')
    expectError(await addRepo(app, key, 'https://github.com/ACME/widgets/'), 409, 'library_exists')
  })

  it('422 no_code_found for a repository with only a LICENSE', async () => {
    expect((await addRepo(app, key, 'https://github.com/acme/license-only')).statusCode).toBe(200)
    expect(await waitForLibrary(app, '/acme/license-only')).toMatchObject({ state: 'error', errorCode: 'no_code_found' })
    expectError(await context({ libraryId: '/acme/license-only', query: 'license' }), 422, 'no_code_found')
  })

  it('422 library_too_large over the snippet cap', async () => {
    const saved = LIMITS.maxSnippets
    LIMITS.maxSnippets = 2
    try {
      expect((await addRepo(app, key, 'https://github.com/acme/huge')).statusCode).toBe(200)
      expect(await waitForLibrary(app, '/acme/huge')).toMatchObject({ state: 'error', errorCode: 'library_too_large' })
    } finally {
      LIMITS.maxSnippets = saved
    }
    const message = expectError(await context({ libraryId: '/acme/huge', query: 'a' }), 422, 'library_too_large')
    expect(message).toContain('3 snippets')
  })

  it('500 source_unreachable for a job that could not clone, without internals in the message', async () => {
    expect((await addRepo(app, key, 'https://github.com/acme/missing')).statusCode).toBe(200)
    expect(await waitForLibrary(app, '/acme/missing')).toMatchObject({ state: 'error' })
    const message = expectError(await context({ libraryId: '/acme/missing', query: 'render' }), 500, 'source_unreachable')
    expect(message).toContain('/acme/missing')
    expect(message).not.toContain(remotes)
    expect(message).not.toMatch(/file:|fatal:|\n\s+at /)
  })

  it('503 search_failed when the set cannot be searched, without internals in the message', async () => {
    const { setPk } = await seedLibrary(app, '/acme/broken', GUIDE)
    // A code snippet whose stored body is no longer JSON, and no engine file: rebuilding it fails.
    await sqlOf(app.runtime.store).run(`UPDATE snippets SET body = '{' WHERE set_pk = ? AND kind = 'code'`, [setPk])
    rmSync(engineFilePath(app.runtime.store.paths, setPk))
    const message = expectError(await context({ libraryId: '/acme/broken', query: 'render' }), 503, 'search_failed')
    expect(message).not.toMatch(/JSON|position|sqlite|Unexpected/i)
  })
})

describe('429 rate_limit_exceeded', () => {
  // A day-long window: a fixed window rolling over mid-test would reset the counts.
  const limits = { anonymous: 3, keyed: 5, windowSeconds: 86_400 }

  it('limits anonymous callers and sends the RateLimit headers', async () => {
    const limited = await buildTestApp({ rateLimit: limits })
    const get = () => limited.inject({ url: '/api/v2/libs/search', query: { libraryName: 'anything' } })
    for (const remaining of [2, 1, 0]) {
      const res = await get()
      expect(res.statusCode).toBe(404)
      expect(res.headers['ratelimit-limit']).toBe('3')
      expect(res.headers['ratelimit-remaining']).toBe(String(remaining))
    }
    const before = Math.floor(Date.now() / 1000)
    const refused = await get()
    expectError(refused, 429, 'rate_limit_exceeded')
    const retryAfter = Number(refused.headers['retry-after'])
    const reset = Number(refused.headers['ratelimit-reset'])
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= limits.windowSeconds).toBe(true)
    expect(refused.headers['ratelimit-limit']).toBe('3')
    expect(refused.headers['ratelimit-remaining']).toBe('0')
    expect(Number.isInteger(reset) && reset > before).toBe(true)
    expect(Math.abs(reset - (before + retryAfter))).toBeLessThanOrEqual(2)
    // Liveness probes are never limited.
    expect((await limited.inject({ url: '/api/health' })).statusCode).toBe(200)
  })

  it('gives keyed callers the higher limit, counted per key', async () => {
    const limited = await buildTestApp({ rateLimit: limits })
    const get = (token: string) => limited.inject({ url: '/api/v2/libs/search', query: { libraryName: 'anything' }, headers: bearer(token) })
    const first = await createKey(limited, 'first')
    for (let i = 0; i < 5; i++) expect((await get(first)).headers['ratelimit-limit']).toBe('5')
    expectError(await get(first), 429, 'rate_limit_exceeded')
    expect((await get(await createKey(limited, 'second'))).statusCode).toBe(404)
  })

  it('counts requests with a wrong key against the anonymous bucket of their address', async () => {
    const limited = await buildTestApp({ rateLimit: limits })
    const guess = (url = '/api/v2/libs/search') => limited.inject({ url, query: { libraryName: 'anything' }, headers: bearer(`lct_${'A'.repeat(40)}`) })
    for (const remaining of [2, 1, 0]) {
      const res = await guess()
      expectError(res, 401, 'invalid_api_key')
      expect(res.headers['ratelimit-limit']).toBe('3')
      expect(res.headers['ratelimit-remaining']).toBe(String(remaining))
    }
    for (const url of ['/api/v2/libs/search', '/mcp', '/api/health']) {
      const refused = await guess(url)
      expect(refused.statusCode, url).toBe(429)
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect(refused.headers['ratelimit-remaining']).toBe('0')
    }
    expectError(await guess(), 429, 'rate_limit_exceeded')
    expectError(await limited.inject({ url: '/api/v2/libs/search', query: { libraryName: 'x' }, headers: { authorization: 'Basic abc' } }), 429, 'rate_limit_exceeded')
    // The same address with a valid key is counted under that key and still served.
    const valid = await limited.inject({ url: '/api/v2/libs/search', query: { libraryName: 'anything' }, headers: bearer(await createKey(limited)) })
    expect(valid.statusCode).toBe(404)
    expect(valid.headers['ratelimit-limit']).toBe('5')
  })
})

describe('probes and unknown routes', () => {
  it('/api/health and /api/ready answer', async () => {
    const health = await app.inject({ url: '/api/health' })
    expect([health.statusCode, health.json()]).toEqual([200, { status: 'ok' }])
    const ready = await app.inject({ url: '/api/ready' })
    expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ready' }])
  })

  it('/api/ready is 503 not_ready, naming the job process, while the jobs are not running', async () => {
    const stopped: JobRunner = { isRunning: false, start() {}, wake() {}, stop: async () => {}, drain: async () => {} }
    const unready = await buildTestApp({ jobRunner: stopped })
    const ready = await unready.inject({ url: '/api/ready' })
    expect([ready.statusCode, ready.json()]).toEqual([
      503,
      { error: 'not_ready', message: 'The server is starting or stopping, or its job process is being started again after it ended (the server log says why).' },
    ])
  })

  it('an unknown route is 404 not_found', async () => {
    expectError(await app.inject({ url: '/api/v3/whatever' }), 404, 'not_found')
    expectError(await app.inject({ method: 'DELETE', url: '/api/v2/context' }), 404, 'not_found')
  })
})
