/**
 * The website reader against a real static site: scope, robots.txt, sitemap seeding, canonical
 * de-duplication, crawl-trap bounds, size caps, chrome removal and code languages.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { readHtmlPage } from '../../src/parse/html.js'
import { HttpClient } from '../../src/sources/http.js'
import type { FetchedSource, SourceContext } from '../../src/sources/types.js'
import { pagePath, readWebsite, scopeOf, websiteLibraryId, type websiteSpec } from '../../src/sources/website.js'
import { FOOTER_MARK, NAV_MARK, SECRET_MARK, startDocsSite, type DocsSite } from '../helpers/docs-site.js'
import { suiteTeardown } from '../helpers/tmp.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'
import { testParse } from '../helpers/parse.js'

const defer = suiteTeardown()
let site: DocsSite

beforeAll(async () => {
  site = await startDocsSite(defer)
})

function context(previousRevision: string | null = null): SourceContext & { logs: string[] } {
  const logs: string[] = []
  return {
    http: new HttpClient({ retries: 0, timeoutMs: 5_000 }),
    store: undefined as never,
    signal: new AbortController().signal,
    parse: testParse(),
    progress: () => {},
    log: (message) => logs.push(message),
    previousRevision,
    libraryId: '/test/library',
    tag: '',
    workDir: '',
    connections: INSTALL_CONNECTIONS,
    // No page is rendered here: a browser started by mistake fails on the empty path.
    chromiumPath: '',
    logs,
  }
}

/** The reader takes any `{ type }`; the tests' specs are checked against its schema's input. */
const read = (spec: Omit<z.input<typeof websiteSpec>, 'type'>, ctx: SourceContext) => readWebsite({ type: 'website', ...spec }, ctx)

describe('ID and path rules', () => {
  it('names the library after the scope host and path', () => {
    expect(websiteLibraryId('https://docs.example.com/guide/')).toBe('/websites/docs.example.com-guide')
    expect(websiteLibraryId('https://docs.example.com/guide/intro.html')).toBe('/websites/docs.example.com-guide')
    expect(websiteLibraryId('https://docs.example.com/guide/intro.html', 'https://docs.example.com/')).toBe('/websites/docs.example.com')
    expect(websiteLibraryId('http://127.0.0.1:8080/')).toBe('/websites/127.0.0.1-8080')
  })

  it('scopes to the start URL directory by default', () => {
    expect(scopeOf('https://x.test/docs/intro.html?a=1#b')).toBe('https://x.test/docs/')
    expect(scopeOf('https://x.test/docs/intro.html', 'https://x.test/')).toBe('https://x.test/')
  })

  it('maps page URLs to Markdown document paths', () => {
    expect(pagePath('https://x.test/')).toBe('index.md')
    expect(pagePath('https://x.test/guide/')).toBe('guide/index.md')
    expect(pagePath('https://x.test/guide/install.html')).toBe('guide/install.md')
    expect(pagePath('https://x.test/guide/install')).toBe('guide/install.md')
  })
})

describe('HTML to Markdown', () => {
  it('keeps the main content and code languages, drops the chrome', () => {
    const html = `<html><body><header><nav><a href="/">Home nav</a></nav></header>
      <main><h1>Page</h1><p>Some prose about the page.</p>
      <pre><code class="language-js">a()</code></pre>
      <pre><code class="lang-ruby">b</code></pre>
      <div class="highlight highlight-source-go"><pre>c()</pre></div>
      <pre data-language="Rust"><code>d()</code></pre></main>
      <footer>Footer text</footer></body></html>`
    const page = readHtmlPage(html, 'https://x.test/page.html')
    expect(page.title).toBe('Page')
    expect(page.markdown).toMatch(/^# Page\n/)
    for (const fence of ['```js\na()', '```ruby\nb', '```go\nc()', '```rust\nd()']) expect(page.markdown).toContain(fence)
    expect(page.markdown).not.toContain('Home nav')
    expect(page.markdown).not.toContain('Footer text')
    expect(page.links).toEqual(['https://x.test/'])
  })
})

describe('crawling a docs site', () => {
  let fetched: FetchedSource
  let logs: string[]
  let paths: string[]

  beforeAll(async () => {
    const ctx = context()
    fetched = await read({ url: `${site.url}/`, maxPerPattern: 10 }, ctx)
    logs = ctx.logs
    paths = fetched.documents.map((d) => d.path)
  })

  it('reads every page in scope, including one only the sitemap lists', () => {
    expect(paths).toEqual(expect.arrayContaining(['index.md', 'guide/index.md', 'guide/install.md', 'guide/configure.md', 'api/widgets.md', 'troubleshooting.md']))
    expect(fetched.title).toBe('Acme Widgets')
    expect(fetched.description).toBe('Gauges and charts for the browser.')
  })

  it('honours robots.txt', () => {
    expect(paths.some((p) => p.startsWith('private/'))).toBe(false)
    expect(site.requests.some((r) => r.startsWith('/private/'))).toBe(false)
    expect(fetched.documents.every((d) => !d.text.includes(SECRET_MARK))).toBe(true)
  })

  it('keeps one document for a canonical duplicate and drops query strings', () => {
    expect(paths.filter((p) => p.startsWith('guide/index'))).toEqual(['guide/index.md'])
    expect(site.requests.filter((r) => r.startsWith('/guide/install.html'))).toEqual(['/guide/install.html'])
  })

  it('bounds a crawl trap by the per-pattern cap', () => {
    const calendar = paths.filter((p) => p.startsWith('calendar/'))
    expect(calendar.length).toBeGreaterThan(0)
    expect(calendar.length).toBeLessThanOrEqual(10)
  })

  it('skips pages over the size cap and non-HTML responses', () => {
    expect(paths).not.toContain('big.md')
    expect(paths).not.toContain('download.md')
    expect(logs.some((l) => l.includes('big.html') && l.includes('limit'))).toBe(true)
    expect(site.requests).not.toContain('/logo.png')
  })

  it('drops the chrome and keeps code languages', () => {
    for (const doc of fetched.documents) {
      expect(doc.text).not.toContain(FOOTER_MARK)
      expect(doc.text).not.toContain(NAV_MARK)
    }
    const text = (path: string) => fetched.documents.find((d) => d.path === path)!.text
    expect(text('guide/install.md')).toContain("```js\nimport { createGauge } from '@acme/widgets'")
    expect(text('guide/configure.md')).toContain('```python\nfrom acme_widgets import set_theme')
    expect(text('api/widgets.md')).toContain('```typescript\nwidget.resize')
  })

  it('locates snippets at the page URL and anchor', () => {
    expect(fetched.locate('guide/configure.md', 'themes')).toBe(`${site.url}/guide/configure.html#themes`)
    expect(fetched.locate('guide/index.md', '')).toBe(`${site.url}/guide/`)
  })

  it('reports unchanged when the start page answers 304 to its ETag', async () => {
    expect(fetched.revision).toMatch(/^etag:"v1"\|sha256:[0-9a-f]{64}$/)
    const again = await read({ url: `${site.url}/` }, context(fetched.revision!))
    expect(again).toMatchObject({ unchanged: true, documents: [] })
  })

  it('stays within the base URL', async () => {
    const guide = await read({ url: `${site.url}/guide/` }, context())
    expect(guide.documents.map((d) => d.path).sort()).toEqual(['guide/configure.md', 'guide/index.md', 'guide/install.md'])
  })

  it('bounds the crawl by page count and depth', async () => {
    const few = await read({ url: `${site.url}/`, maxPages: 3 }, context())
    expect(few.documents.length).toBeLessThanOrEqual(3)
    const shallow = await read({ url: `${site.url}/guide/`, maxDepth: 0 }, context())
    expect(shallow.documents.map((d) => d.path)).toEqual(['guide/index.md'])
  })
})

describe('bad start URLs', () => {
  it('fails on a 404 start page, a redirect loop, and a non-http URL', async () => {
    await expect(read({ url: `${site.url}/missing/` }, context())).rejects.toMatchObject({ code: 'source_unreachable', message: expect.stringContaining('404') })
    await expect(read({ url: `${site.url}/loop/` }, context())).rejects.toMatchObject({ message: expect.stringContaining('redirects') })
    await expect(read({ url: 'ftp://x.test/' }, context())).rejects.toMatchObject({ code: 'validation_error' })
  })
})
