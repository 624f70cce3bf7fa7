/**
 * End to end over HTTP: a realistic repository is added through the API, cloned with real git,
 * parsed, embedded and searched. Questions in plain words must get the right snippet first,
 * token counts must match what is served, and files that must be skipped never surface.
 */
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { renderSnippetText, TXT_SEPARATOR, type ContextResponse } from '../../src/index/render.js'
import type { LibrarySummary } from '../../src/search/libraries.js'
import { countTokens } from '../../src/text/tokens.js'
import { addRepo, buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { EXCLUDED_WORDS, WIDGETS_DESCRIPTION, WIDGETS_RULE, widgetsFiles } from '../helpers/widgets-repo.js'

const defer = suiteTeardown()
let app: FastifyInstance
let commit: string

const chartsFiles = {
  'README.md': '# Widgets Charts\n\nDraw bar, line and pie charts on canvas with the charts plugin for Acme widgets.\n',
  'docs/bar.md': '# Bar charts\n\n## Draw a bar chart\n\nPass the series to `barChart`:\n\n```js\nbarChart(canvas, [4, 8, 15])\n```\n',
  // The same title as the main library: only the question can tell them apart.
  'context7.json': JSON.stringify({ projectTitle: 'Widgets' }),
}

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  commit = (await makeGitRepo(widgetsFiles(), { parent: remotes, name: 'widgets' })).commit
  await makeGitRepo(chartsFiles, { parent: remotes, name: 'widgets-charts' })
  redirectGitHub(remotes, defer)
  app = await buildTestApp({ defer })
  const key = await createKey(app)
  for (const name of ['widgets', 'widgets-charts']) {
    const added = await addRepo(app, key, `https://github.com/acme/${name}`)
    expect(added.statusCode).toBe(200)
    expect(added.json()).toEqual({ libraryName: `/acme/${name}`, message: expect.stringContaining(`/acme/${name}`) })
  }
  for (const name of ['widgets', 'widgets-charts']) {
    const version = await waitForLibrary(app, `/acme/${name}`)
    expect(version, version.errorMessage ?? '').toMatchObject({ state: 'finalized' })
  }
})

async function contextJson(query: string, tokens?: number): Promise<ContextResponse> {
  const res = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query, type: 'json', ...(tokens ? { tokens: String(tokens) } : {}) } })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
  return res.json()
}

/** The snippet blocks of a txt answer, without the library owner's rules block. */
async function contextBlocks(query: string, tokens?: number): Promise<string[]> {
  const res = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query, ...(tokens ? { tokens: String(tokens) } : {}) } })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
  const [rules, ...blocks] = res.body.split(TXT_SEPARATOR)
  expect(rules).toBe(`### Rules from the library owner\n\n- ${WIDGETS_RULE}`)
  return blocks
}

/** The web link of `path#anchor` at the cloned commit (known only once beforeAll ran). */
const linkTo = (file: string) => `https://github.com/acme/widgets/blob/${commit}/${file}`

describe('questions in plain words get the right snippet first', () => {
  const cases = [
    {
      question: 'how do I create a widget with TypeScript tabs',
      file: 'docs/tabs.mdx#create-a-widget',
      languages: ['javascript', 'typescript'],
      code: 'createWidget(options)',
    },
    {
      question: 'connect the python client to a server and fetch a widget',
      file: 'docs/api.rst#python-client',
      languages: ['python'],
      code: 'client.fetch_widget("sales-gauge")',
    },
    {
      question: 'plot a sparkline inline in a Jupyter notebook',
      file: 'examples/quickstart.ipynb#plot-a-sparkline-in-jupyter',
      languages: ['python'],
      code: 'sparkline([3, 1, 4, 1, 5, 9], width=320)',
    },
    {
      question: 'install widgets with npm, yarn or pnpm',
      file: 'docs/guide.md#install-the-package-manager-packages',
      languages: ['bash', 'bash', 'bash'],
      code: 'pnpm add widgets',
    },
  ]

  it.each(cases)('json: $question', async ({ question, file, languages, code }) => {
    const [first] = (await contextJson(question)).codeSnippets
    expect(first.codeId).toBe(linkTo(file))
    expect(first.codeList.map((c) => c.language)).toEqual(languages)
    expect(first.codeList.map((c) => c.code).join('\n')).toContain(code)
  })

  it.each(cases)('txt: $question', async ({ question, file, code }) => {
    const [first] = await contextBlocks(question)
    expect(first.split('\n\n')[1]).toBe(`Source: ${linkTo(file)}`)
    expect(first).toContain(code)
  })

  it('keeps tabs as one snippet with a fenced block per tab', async () => {
    const [first] = await contextBlocks('how do I create a widget with TypeScript tabs')
    expect(first).toMatch(/^### Create a widget\n/)
    expect(first).toContain("```javascript\nimport { createWidget } from 'widgets'")
    expect(first).toContain("```typescript\nimport { createWidget, type WidgetOptions } from 'widgets'")
  })

  it('reads an rst literal block (::) as code', async () => {
    const { codeSnippets } = await contextJson('list every widget with the command line tool')
    expect(codeSnippets[0]).toMatchObject({ codeId: linkTo('docs/api.rst#command-line') })
    expect(codeSnippets[0].codeList[0].code).toBe('widgets-cli list --server https://widgets.example.com')
  })

  it('serves a GFM table as an info snippet', async () => {
    const { infoSnippets } = await contextJson('which options does a widget accept, refreshInterval theme timeout')
    const options = infoSnippets.find((s) => s.pageId === linkTo('docs/guide.md#options'))
    expect(options?.content).toContain('| `refreshInterval` | number | 0 |')
  })
})

describe('token accounting', () => {
  it('codeTokens and contentTokens are the tokens of the rendered snippet', async () => {
    const { codeSnippets, infoSnippets } = await contextJson('configure render widget options', 50_000)
    expect(codeSnippets.length).toBeGreaterThan(3)
    expect(infoSnippets.length).toBeGreaterThan(0)
    for (const s of codeSnippets) {
      const text = renderSnippetText({ kind: 'code', title: s.codeTitle, description: s.codeDescription, breadcrumb: '', source: s.codeId, body: JSON.stringify(s.codeList) })
      expect(s.codeTokens, s.codeTitle).toBe(countTokens(text))
    }
    for (const s of infoSnippets) {
      const text = renderSnippetText({ kind: 'info', title: '', description: '', breadcrumb: s.breadcrumb, source: s.pageId, body: s.content })
      expect(s.contentTokens, s.breadcrumb).toBe(countTokens(text))
    }
  })

  it('the tokens of the txt blocks are the tokens the json reports', async () => {
    const question = 'configure render widget options'
    const { codeSnippets, infoSnippets } = await contextJson(question, 50_000)
    const reported = [...codeSnippets.map((s) => s.codeTokens), ...infoSnippets.map((s) => s.contentTokens)]
    const served = (await contextBlocks(question, 50_000)).map(countTokens)
    expect(served.sort((a, b) => a - b)).toEqual(reported.sort((a, b) => a - b))
  })

  it('stays within the tokens= budget and the budget binds', async () => {
    const question = 'widget'
    const all = await contextBlocks(question, 50_000)
    const small = await contextBlocks(question, 500)
    expect(all.map(countTokens).reduce((a, b) => a + b, 0)).toBeGreaterThan(500)
    expect(small.length).toBeLessThan(all.length)
    expect(small.map(countTokens).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(500)
    expect(countTokens(small.join(TXT_SEPARATOR))).toBeLessThanOrEqual(500)
    const { codeSnippets, infoSnippets } = await contextJson(question, 500)
    const used = [...codeSnippets.map((s) => s.codeTokens), ...infoSnippets.map((s) => s.contentTokens)].reduce((a, b) => a + b, 0)
    expect(used).toBeLessThanOrEqual(500)
  })
})

describe('the response shape', () => {
  it('links every snippet to its file and heading at the cloned commit', async () => {
    const { codeSnippets, infoSnippets } = await contextJson('widget', 50_000)
    const sources = [...codeSnippets.map((s) => s.codeId), ...infoSnippets.map((s) => s.pageId)]
    const shape = new RegExp(`^https://github\\.com/acme/widgets/blob/${commit}/(README\\.md|docs/guide\\.md|docs/tabs\\.mdx|docs/api\\.rst|examples/quickstart\\.ipynb)#[a-z0-9-]+$`)
    expect(sources.length).toBeGreaterThan(5)
    for (const source of sources) expect(source).toMatch(shape)
  })

  it('carries the rules of context7.json in json', async () => {
    expect((await contextJson('timeout')).rules).toEqual({ libraryOwn: [WIDGETS_RULE] })
  })

  it('separates txt blocks by a line of 32 dashes between blank lines', async () => {
    const res = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query: 'widget' } })
    expect(res.body).toContain(`\n\n${'-'.repeat(32)}\n\n`)
    expect(res.body.split(TXT_SEPARATOR).length).toBeGreaterThan(2)
  })
})

describe('files that must not be indexed', () => {
  const forbidden = [...Object.values(EXCLUDED_WORDS), 'nologin', 'root:x:0']

  it.each(forbidden)('never answers with "%s"', async (word) => {
    for (const type of ['json', 'txt']) {
      const res = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/widgets', query: word, type, tokens: '50000' } })
      expect(res.statusCode === 200 || res.statusCode === 404, res.body).toBe(true)
      expect(res.body).not.toContain(word)
    }
  })

  it('stores nothing from CHANGELOG, LICENSE, internal/, the symlink or the binary file', async () => {
    const { store } = app.runtime
    const library = (await store.libraries.byId('/acme/widgets'))!
    const setPk = (await store.libraries.version(library.pk, ''))!.currentSet!
    const snippets = await store.snippets.allOfSet(setPk)
    const files = new Set(snippets.map((s) => s.source.replace(/^.*?\/blob\/[0-9a-f]+\//, '').replace(/#.*$/, '')))
    expect([...files].sort()).toEqual(['README.md', 'docs/api.rst', 'docs/guide.md', 'docs/tabs.mdx', 'examples/quickstart.ipynb'])
    for (const s of snippets) for (const word of forbidden) expect(s.body).not.toContain(word)
  })
})

describe('/api/v2/libs/search', () => {
  async function search(libraryName: string, query?: string): Promise<LibrarySummary[]> {
    const res = await app.inject({ url: '/api/v2/libs/search', query: { libraryName, ...(query ? { query } : {}) } })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().results
  }

  it('returns the library with every Library field', async () => {
    const [widgets] = await search('/acme/widgets')
    const { store } = app.runtime
    const setPk = (await store.libraries.version((await store.libraries.byId('/acme/widgets'))!.pk, ''))!.currentSet!
    const snippets = await store.snippets.allOfSet(setPk)
    expect(widgets).toEqual({
      id: '/acme/widgets',
      title: 'widgets',
      description: WIDGETS_DESCRIPTION,
      branch: 'main',
      lastUpdateDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      state: 'finalized',
      totalTokens: snippets.reduce((sum, s) => sum + s.tokens, 0),
      totalSnippets: snippets.length,
      trustScore: expect.any(Number),
      benchmarkScore: expect.any(Number),
      versions: [],
    })
  })

  it.each(['/acme/widgets', 'acme/widgets', 'widgets', 'Widgets', 'widgts'])('finds it as "%s"', async (name) => {
    expect((await search(name))[0].id).toBe('/acme/widgets')
  })

  it('finds the other library by its exact ID', async () => {
    expect((await search('/acme/widgets-charts'))[0].id).toBe('/acme/widgets-charts')
  })

  it('lets the question break a tie between libraries of the same name', async () => {
    const ids = (results: LibrarySummary[]) => results.map((r) => r.id)
    expect(ids(await search('Widgets', 'draw a bar chart on canvas'))).toEqual(['/acme/widgets-charts', '/acme/widgets'])
    expect(ids(await search('Widgets', 'dashboard widgets in python'))).toEqual(['/acme/widgets', '/acme/widgets-charts'])
  })
})
