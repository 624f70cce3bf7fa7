/**
 * End to end over HTTP: a real static docs site is added as a website and as an llms.txt through
 * the API, crawled by the worker and searched. Questions get the right page's code first, the
 * site chrome never reaches a snippet, and bad sources fail their job with a clear message.
 */
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ContextResponse } from '../../src/index/render.js'
import { websiteLibraryId } from '../../src/sources/website.js'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { FOOTER_MARK, NAV_MARK, SECRET_MARK, startDocsSite, type DocsSite } from '../helpers/docs-site.js'
import { freePort } from '../helpers/server.js'
import { suiteTeardown } from '../helpers/tmp.js'

const defer = suiteTeardown()
let site: DocsSite
let app: FastifyInstance
let key: string
let websiteId: string
let llmstxtId: string

function post(target: FastifyInstance, url: string, payload: Record<string, string>, bearer: string | undefined = key) {
  return target.inject({ method: 'POST', url, payload, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} })
}

async function context(libraryId: string, query: string): Promise<ContextResponse> {
  const res = await app.inject({ url: '/api/v2/context', query: { libraryId, query, type: 'json' } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

beforeAll(async () => {
  site = await startDocsSite(defer)
  app = await buildTestApp({ defer })
  key = await createKey(app)
  const website = await post(app, '/api/v2/add/website', { websiteUrl: `${site.url}/` })
  expect(website.statusCode, website.body).toBe(200)
  websiteId = website.json().libraryName
  const llmstxt = await post(app, '/api/v2/add/llmstxt', { llmstxtUrl: `${site.url}/llms.txt` })
  expect(llmstxt.statusCode, llmstxt.body).toBe(200)
  llmstxtId = llmstxt.json().libraryName
  for (const id of [websiteId, llmstxtId]) {
    const version = await waitForLibrary(app, id)
    expect(version, version.errorMessage ?? '').toMatchObject({ state: 'finalized' })
  }
})

describe('adding web sources', () => {
  it('answers with the library ID of each rule', () => {
    const host = new URL(site.url).host.replace(':', '-')
    expect(websiteId).toBe(`/websites/${host}`)
    expect(llmstxtId).toBe(`/llmstxt/${host}-llms.txt`)
  })

  it('requires an API key and a URL', async () => {
    expect((await post(app, '/api/v2/add/website', { websiteUrl: `${site.url}/guide/` }, '')).statusCode).toBe(401)
    expect((await post(app, '/api/v2/add/llmstxt', {})).statusCode).toBe(400)
    const notHttp = await post(app, '/api/v2/add/website', { websiteUrl: 'ftp://example.com/' })
    expect(notHttp.statusCode).toBe(400)
    expect(notHttp.json().error).toBe('validation_error')
  })

  it('refuses adding the same site twice', async () => {
    expect((await post(app, '/api/v2/add/website', { websiteUrl: `${site.url}/` })).statusCode).toBe(409)
  })
})

describe('a crawled website', () => {
  const cases = [
    { question: 'create a speedometer gauge on a canvas', page: '/guide/install.html', language: 'javascript', code: 'createGauge(document' },
    { question: 'switch the colour theme on the server with python', page: '/guide/configure.html#themes', language: 'python', code: 'set_theme("midnight"' },
    { question: 'resize a widget to new pixel dimensions', page: '/api/widgets.html', language: 'typescript', code: 'widget.resize' },
    { question: 'blurry gauge on a retina high density display', page: '/troubleshooting.html', language: 'javascript', code: 'pixelRatio' },
  ]
  for (const { question, page, language, code } of cases) {
    it(`answers "${question}" with the right page's code first`, async () => {
      const [first] = (await context(websiteId, question)).codeSnippets
      expect(first.codeId).toContain(`${site.url}${page}`)
      expect(first.codeLanguage).toBe(language)
      expect(first.codeList[0].code).toContain(code)
    })
  }

  it('never serves the chrome, robots-disallowed pages or the over-size page', async () => {
    for (const question of ['copyright all rights reserved static site generator', 'acme docs home staff rotation schedule', 'release calendar next month']) {
      const body = JSON.stringify(await context(websiteId, question))
      expect(body).not.toContain(FOOTER_MARK)
      expect(body).not.toContain(NAV_MARK)
      expect(body).not.toContain(SECRET_MARK)
      expect(body).not.toContain('/private/')
      expect(body).not.toContain('/big.html')
    }
  })

  it('keeps one copy of a canonical duplicate and bounds the crawl trap', async () => {
    const { store } = app.runtime
    const version = (await store.libraries.version((await store.libraries.byId(websiteId))!.pk, ''))!
    const pages = new Set((await store.snippets.allOfSet(version.currentSet!)).map((s) => s.source.split('#')[0]))
    expect(pages.has(`${site.url}/guide/index.html`)).toBe(false)
    expect(pages.has(`${site.url}/guide/`)).toBe(true)
    expect(site.requests.filter((r) => r.startsWith('/calendar/')).length).toBeLessThanOrEqual(25)
  })
})

describe('an llms.txt source', () => {
  it('serves code from the linked Markdown pages', async () => {
    const [first] = (await context(llmstxtId, 'add a red colour band to a gauge above the warning threshold')).codeSnippets
    expect(first.codeId).toBe(`${site.url}/docs/gauges.md#colour-bands`)
    expect(first.codeLanguage).toBe('javascript')
  })

  it('serves the Optional section when the budget allows', async () => {
    const [first] = (await context(llmstxtId, 'migrate a removed sparkline to a compact line chart')).codeSnippets
    expect(first.codeId).toBe(`${site.url}/docs/changelog.md#200`)
  })

  it('reads llms-full.txt as one document', async () => {
    const added = await post(app, '/api/v2/add/llmstxt', { llmstxtUrl: `${site.url}/llms-full.txt` })
    const id = added.json().libraryName
    expect((await waitForLibrary(app, id)).state).toBe('finalized')
    const [first] = (await context(id, 'animate the gauge needle smoothly with easing')).codeSnippets
    expect(first.codeList[0].code).toContain('gauge.animate')
  })
})

describe('bad sources fail their job with a clear message', () => {
  async function failure(target: FastifyInstance, bearer: string, payload: Record<string, string>): Promise<string> {
    const added = await post(target, '/api/v2/add/website', payload, bearer)
    expect(added.statusCode, added.body).toBe(200)
    const version = await waitForLibrary(target, added.json().libraryName)
    expect(version.state).toBe('error')
    return version.errorMessage ?? ''
  }

  it('an unreachable host', async () => {
    expect(await failure(app, key, { websiteUrl: `http://127.0.0.1:${await freePort()}/docs/` })).toMatch(/ECONNREFUSED/)
  })

  it('a 404 start page', async () => {
    expect(await failure(app, key, { websiteUrl: `${site.url}/missing/` })).toContain('answered 404')
  })

  it('a redirect loop', async () => {
    expect(await failure(app, key, { websiteUrl: `${site.url}/loop/` })).toContain('redirects')
  })

  it('a private address in cloud mode, with nothing served', async () => {
    const cloud = await buildTestApp({ mode: 'cloud' })
    const requestsBefore = site.requests.length
    const message = await failure(cloud, await createKey(cloud), { websiteUrl: `${site.url}/guide/` })
    expect(message).toContain('private address')
    expect(site.requests.length).toBe(requestsBefore)
    const res = await cloud.inject({ url: '/api/v2/context', query: { libraryId: websiteLibraryId(`${site.url}/guide/`), query: 'install' } })
    expect(res.statusCode).not.toBe(200)
  })
})
