import { describe, expect, it } from 'vitest'
import { definedAnchors, hasMarkupResidue, inspectDocument } from '../../src/extraction/document-report.js'
import { ExtractionReportSchema, ExtractionTally, MAX_ITEMS, reportSummary } from '../../src/extraction/report.js'
import { parseMarkdown } from '../../src/parse/markdown.js'
import type { DocumentReport, IncludeOutcome, ParsedSnippet } from '../../src/parse/types.js'

const LONG = 'which explains enough about the behaviour that the section makes an info snippet of its own'

const info = (breadcrumb: string, anchor: string): ParsedSnippet => ({ kind: 'info', breadcrumb, pageTitle: 'Page', anchor, content: LONG })
const code = (title: string, anchor: string, language = 'js'): ParsedSnippet => ({
  kind: 'code',
  title,
  description: '',
  breadcrumb: `Page > ${title}`,
  pageTitle: 'Page',
  anchor,
  codeList: [{ language, code: 'x()' }],
})

describe('titles with markup left in them', () => {
  it('finds directive braces, tags, emphasis, entities, escapes and roles, and leaves code alone', () => {
    for (const title of [
      'My Effect runs twice {/my-effect-runs-twice/}',
      'Install {#install}',
      'Version {{< param "version" >}}',
      'Loop {% for x in site.data %}',
      'Title {: .no_toc }',
      'Deprecated <Badge type="warning" text="v2" />',
      'Options <span class="x">',
      'Use <code>fetch</code></code>',
      '**Bold** title',
      'An *emphasised* word',
      'Tom &amp; Jerry',
      'Escaped \\_name',
      ':::tip Title',
      'See :func:`open`',
    ]) expect(hasMarkupResidue(title), title).toBe(true)
    for (const title of ['Array<T> and Map<K, V>', 'Spread {...props}', 'The __init__ method', 'useState()', 'a * b', 'C# and F#', 'Pointers: *p and &x']) {
      expect(hasMarkupResidue(title), title).toBe(false)
    }
  })
})

describe('anchors a page defines', () => {
  it('reads explicit ids in every syntax, slugs of headings with their markup taken out, and HTML ids; not inside fences', () => {
    const text = [
      '# The *Page*',
      '## Install {#install-now}',
      '### Runs twice {/*runs-twice*/}',
      '## Kramdown {: #kd }',
      '## A [link](https://x.test) and `code`',
      'Setext heading',
      '--------------',
      '<a id="custom-spot"></a>',
      '```md',
      '## Not a heading',
      '```',
      '## Same',
      '## Same',
    ].join('\n')
    expect([...definedAnchors([text])].sort()).toEqual(['a-link-and-code', 'custom-spot', 'install-now', 'kd', 'runs-twice', 'same', 'same-1', 'setext-heading', 'the-page'].sort())
  })
})

describe('anchors as the generators render headings', () => {
  it('reads headings in quotes, keeps code in them, decodes entities and escapes', () => {
    const text = [
      '> ### Ownership of Struct Data',
      '# Page title',
      '## The `Option<T>` match Pattern',
      '### About `__name__ == "__main__"`',
      '## Controlling page \\<title\\>',
      '## 2nd&ndash;4th articles',
      '## `--bail[=<n>]`',
      '# Test Artifacts <Advanced /> <Version>4.0.11</Version>',
    ].join('\n')
    const anchors = definedAnchors([text])
    for (const anchor of ['ownership-of-struct-data', 'page-title', 'the-optiont-match-pattern', 'about-__name__--__main__', 'controlling-page-title', '2nd4th-articles', '--bailn', 'test-artifacts-4011']) {
      expect(anchors, anchor).toContain(anchor)
    }
  })

  it('slugs headings by the site generator\'s rules: GitHub, VitePress, Python-Markdown (MkDocs)', () => {
    const text = ['# Release 4.0.11', '## Foo & Bar', '## Café  au -- lait', '## Same', '## Same', '## 日本語', '## Kept {#kept-id}'].join('\n')
    const anchors = (style: Parameters<typeof definedAnchors>[1]) => [...definedAnchors([text], style)]
    expect(anchors('github')).toEqual(['release-4011', 'foo--bar', 'café-au----lait', 'same', 'same-1', '日本語', 'kept-id'])
    expect(anchors('vitepress')).toEqual(['release-4-0-11', 'foo-bar', 'cafe-au-lait', 'same', 'same-1', '日本語', 'kept-id'])
    // ASCII only, so a heading of CJK text has an empty slug, which Python-Markdown numbers.
    expect(anchors('python-markdown')).toEqual(['release-4011', 'foo-bar', 'cafe-au-lait', 'same', 'same_1', '_1', 'kept-id'])
  })

  it('gives snippets the anchors their site defines, so that a VitePress or MkDocs page has no undefined anchor', () => {
    const text = `# Guide\n\n## Version 4.0.11\n\n${LONG}.\n\n\`\`\`js\nrun()\n\`\`\`\n\n## Foo & Bar\n\n${LONG}.\n\n## Foo & Bar\n\n${LONG}.\n`
    const sites = { anchorStyles: [{ root: 'vp', style: 'vitepress' as const }, { root: 'mk/docs', style: 'python-markdown' as const }] }
    const anchorsOf = (path: string) => parseMarkdown({ path, text }, { mdx: false }, sites).map((s) => s.anchor)
    expect(anchorsOf('vp/guide.md')).toEqual(['version-4-0-11', 'foo-bar', 'foo-bar-1'])
    expect(anchorsOf('mk/docs/guide.md')).toEqual(['version-4011', 'foo-bar', 'foo-bar_1'])
    // A page outside both sites, or in a folder that only starts like one, is GitHub's.
    expect(anchorsOf('vpx/guide.md')).toEqual(['version-4011', 'foo--bar', 'foo--bar-1'])
    for (const path of ['vp/guide.md', 'mk/docs/guide.md', 'vpx/guide.md']) {
      const page = { path, text }
      expect(inspectDocument(page, parseMarkdown(page, { mdx: false }, sites), [], sites).undefinedAnchors, path).toEqual([])
    }
    // Checked by GitHub's rules instead, the MkDocs page's links would miss.
    const mkdocs = { path: 'mk/docs/guide.md', text }
    expect(inspectDocument(mkdocs, parseMarkdown(mkdocs, { mdx: false }, sites), [], {}).undefinedAnchors.map((a) => a.anchor)).toEqual(['foo-bar', 'foo-bar_1'])
  })

  it('does not count code in a title as markup', () => {
    const text = '# Components\n\n## Common components (e.g. `<div>`)\n\nProse.\n'
    expect(inspectDocument({ path: 'a.md', text }, [info('Components > Common components (e.g. <div>)', 'common-components-eg-div')], [], {}).titlesWithMarkup).toEqual([])
  })
})

describe('inspecting a document', () => {
  const doc = (text: string, path = 'docs/page.md') => ({ path, text })

  it("flags the anchors React's pages got before MDX comment ids were read in .md files", () => {
    const text = '# Effects\n\n### My Effect runs twice {/*my-effect-runs-twice*/}\n\nProse.\n'
    const before = [info('Effects > My Effect runs twice {/my-effect-runs-twice/}', 'my-effect-runs-twice-my-effect-runs-twice')]
    const report = inspectDocument(doc(text), before, [], {})
    expect(report.undefinedAnchors).toEqual([{ anchor: 'my-effect-runs-twice-my-effect-runs-twice', title: 'My Effect runs twice {/my-effect-runs-twice/}' }])
    expect(report.titlesWithMarkup).toEqual([{ title: 'My Effect runs twice {/my-effect-runs-twice/}', anchor: 'my-effect-runs-twice-my-effect-runs-twice' }])
    // What the parser makes of it now passes both checks.
    const now = parseMarkdown(doc(`${text}\n${LONG}.\n`), { mdx: false })
    expect(inspectDocument(doc(text), now, [], {})).toMatchObject({ undefinedAnchors: [], titlesWithMarkup: [] })
  })

  it('counts code without a language, and a page with prose but no snippet (not an index or a moved-section stub); a reStructuredText page is not checked for anchors', () => {
    expect(inspectDocument(doc('# A\n'), [code('Run', 'a', 'text'), code('Go', 'a', 'text'), code('Js', 'a')], [], {}).codeWithoutLanguage).toBe(2)
    expect(inspectDocument(doc(`# A\n\n${LONG} ${LONG} ${LONG}\n`), [], [], {}).textWithoutSnippet).toBe(true)
    expect(inspectDocument(doc('---\ntitle: Index\n---\n# Index\n\n- [One](one.md)\n'), [], [], {}).textWithoutSnippet).toBe(false)
    const moved = 'Basic Use\n=========\n\nThis section has moved to :ref:`orm_declarative_mapping`.\n\nDefining Attributes\n===================\n\nThis section is covered by :ref:`mapping_columns`.\n\n.. raw:: html\n\n   <span id="basic-markup"><span id="basic-domain-markup"><span id="directive-default-domain">\n'
    expect(inspectDocument(doc(moved, 'doc/basic_use.rst'), [], [], {}).textWithoutSnippet).toBe(false)
    expect(inspectDocument(doc('Title\n=====\n', 'docs/a.rst'), [info('Title', 'whatever')], [], {}).undefinedAnchors).toEqual([])
  })

  it('counts the headings of included Markdown as the page\'s own', () => {
    const includes: IncludeOutcome[] = [{ page: 'docs/page.md', line: 3, reference: 'part.md', resolved: 'docs/part.md' }]
    const context = { includes: { readFile: (path: string) => (path === 'docs/part.md' ? '## From the part\n' : undefined), record: () => {} } }
    expect(inspectDocument(doc('# Page\n\n--8<-- "part.md"\n'), [info('Page > From the part', 'from-the-part')], includes, context).undefinedAnchors).toEqual([])
  })
})

describe('the tally of a job', () => {
  const empty: DocumentReport = { includes: [], textWithoutSnippet: false, titlesWithMarkup: [], undefinedAnchors: [], codeWithoutLanguage: 0, notRendered: [] }

  it('counts exactly, keeps the first MAX_ITEMS of each list, and counts skipped content as warnings', () => {
    const tally = new ExtractionTally()
    const missing = (n: number): IncludeOutcome => ({ page: 'docs/a.md', line: n, reference: `x${n}.py`, problem: 'not found', tried: [`docs/x${n}.py`] })
    tally.document('docs/a.md', { ...empty, includes: [...Array.from({ length: MAX_ITEMS + 5 }, (_, i) => missing(i + 1)), { page: 'docs/a.md', line: 1, reference: 'ok.py', resolved: 'ok.py' }] })
    tally.document('docs/b.md', { ...empty, textWithoutSnippet: true, codeWithoutLanguage: 1 })
    tally.document('docs/c.md', { ...empty, codeWithoutLanguage: 4, titlesWithMarkup: [{ title: 'A {#a}', anchor: 'a' }] })
    tally.skippedDocument('docs/huge.md', 'went over the parse budget')
    expect(tally.skippedContent).toBe(MAX_ITEMS + 5 + 1 + 1)
    const report = tally.report(12, 3)
    expect(ExtractionReportSchema.parse(report)).toEqual(report)
    expect(report).toMatchObject({
      pages: 4,
      snippets: 12,
      duplicatesDropped: 3,
      includes: { found: MAX_ITEMS + 6, resolved: 1, unresolved: { count: MAX_ITEMS + 5 } },
      pagesSkipped: { count: 1, items: [{ page: 'docs/huge.md', reason: 'went over the parse budget' }] },
      pagesWithoutSnippets: { count: 1, items: [{ page: 'docs/b.md' }] },
      titlesWithMarkup: { count: 1, items: [{ page: 'docs/c.md', title: 'A {#a}', anchor: 'a' }] },
      codeWithoutLanguage: { count: 2, items: [{ page: 'docs/c.md', count: 4 }, { page: 'docs/b.md', count: 1 }] },
    })
    expect(report.includes.unresolved.items).toHaveLength(MAX_ITEMS)
    expect(reportSummary(report)).toEqual([`${MAX_ITEMS + 5} includes that read no file`, '1 page that could not be parsed', '1 page with text but no snippet', '1 title with markup left in it'])
  })
})
