/** The llms.txt reader: the format, the linked pages it fetches, its budget and its ID rule. */
import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { HttpClient } from '../../src/sources/http.js'
import { isLinkIndex, llmstxtLibraryId, parseLlmsTxt, readLlmsTxt, type llmstxtSpec } from '../../src/sources/llmstxt.js'
import type { SourceContext } from '../../src/sources/types.js'
import { FOOTER_MARK, startDocsSite, type DocsSite } from '../helpers/docs-site.js'
import { suiteTeardown } from '../helpers/tmp.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'
import { testParse } from '../helpers/parse.js'

const defer = suiteTeardown()
let site: DocsSite

beforeAll(async () => {
  site = await startDocsSite(defer)
})

function context(): SourceContext {
  return {
    http: new HttpClient({ retries: 0, timeoutMs: 5_000 }),
    store: undefined as never,
    signal: new AbortController().signal,
    parse: testParse(),
    progress: () => {},
    log: () => {},
    previousRevision: null,
    libraryId: '/test/library',
    tag: '',
    workDir: '',
    connections: INSTALL_CONNECTIONS,
    // No page is rendered: an llms.txt and its pages are fetched as they are.
    chromiumPath: '',
  }
}

/** The reader takes any `{ type }`; the tests' specs are checked against its schema's input. */
const read = (spec: Omit<z.input<typeof llmstxtSpec>, 'type'>) => readLlmsTxt({ type: 'llmstxt', ...spec }, context())

describe('the llms.txt format', () => {
  const text = `# Title\n\n> One line summary\n> that wraps.\n\nFree text.\n\n## Docs\n\n- [A](/a.md): first\n- [B](https://x.test/b.md)\n\n## Optional\n\n- [C](c.md): later\n`

  it('parses the title, summary, free text and sectioned links', () => {
    expect(parseLlmsTxt(text, 'https://x.test/docs/llms.txt')).toEqual({
      title: 'Title',
      summary: 'One line summary that wraps.',
      details: 'Free text.',
      links: [
        { name: 'A', url: 'https://x.test/a.md', notes: 'first', optional: false },
        { name: 'B', url: 'https://x.test/b.md', notes: '', optional: false },
        { name: 'C', url: 'https://x.test/docs/c.md', notes: 'later', optional: true },
      ],
    })
  })

  it('tells a link index from a full text', () => {
    expect(isLinkIndex(text, 'https://x.test/llms.txt')).toBe(true)
    expect(isLinkIndex(text, 'https://x.test/llms-full.txt')).toBe(false)
    expect(isLinkIndex('# T\n\n## Usage\n\nProse.\n\n```js\na()\n```\n\nMore prose.\n', 'https://x.test/llms.txt')).toBe(false)
  })

  it('names the library after the file host and path', () => {
    expect(llmstxtLibraryId('https://docs.example.com/llms.txt')).toBe('/llmstxt/docs.example.com-llms.txt')
    expect(llmstxtLibraryId('https://example.com/docs/llms-full.txt')).toBe('/llmstxt/example.com-docs-llms-full.txt')
  })
})

describe('reading an llms.txt', () => {
  it('fetches the linked pages of the same site, HTML converted, Optional included within budget', async () => {
    const fetched = await read({ url: `${site.url}/llms.txt` })
    expect(fetched.title).toBe('Acme Widgets')
    expect(fetched.description).toBe('Acme Widgets draws gauges and charts in the browser.')
    const paths = fetched.documents.map((d) => d.path)
    expect(paths).toEqual(['llms.md', 'docs/changelog.md', 'docs/gauges.md', 'docs/install.md', 'guide/configure.md'])
    const themes = fetched.documents.find((d) => d.path === 'guide/configure.md')!.text
    expect(themes).toContain('```python\nfrom acme_widgets import set_theme')
    expect(themes).not.toContain(FOOTER_MARK)
    expect(fetched.locate('docs/gauges.md', 'colour-bands')).toBe(`${site.url}/docs/gauges.md#colour-bands`)
    expect(fetched.revision).toMatch(/^[0-9a-f]{64}$/)
  })

  it('drops the Optional section first when the page budget is spent', async () => {
    const fetched = await read({ url: `${site.url}/llms.txt`, maxPages: 3 })
    expect(fetched.documents.map((d) => d.path)).toEqual(['llms.md', 'docs/gauges.md', 'docs/install.md', 'guide/configure.md'])
  })

  it('takes llms-full.txt as one Markdown document', async () => {
    const fetched = await read({ url: `${site.url}/llms-full.txt` })
    expect(fetched.documents).toHaveLength(1)
    expect(fetched.documents[0].path).toBe('llms-full.md')
    expect(fetched.documents[0].text).toContain("gauge.animate({ duration: 400, easing: 'ease-out' })")
  })

  it('fails on a missing file', async () => {
    await expect(read({ url: `${site.url}/nope/llms.txt` })).rejects.toMatchObject({ code: 'source_unreachable', message: expect.stringContaining('404') })
  })
})
