import { describe, expect, it } from 'vitest'
import { PARSEABLE_EXTENSIONS, parseDocument } from '../../src/parse/index.js'
import { codeSnippets, infoSnippets } from './helpers.js'

describe('parseDocument', () => {
  it('lists the extensions it reads', () => {
    expect([...PARSEABLE_EXTENSIONS].sort()).toEqual(['.adoc', '.asciidoc', '.ipynb', '.markdown', '.md', '.mdx', '.rst', '.txt'])
  })

  it('dispatches by extension, case-insensitively', () => {
    const md = parseDocument({ path: 'docs/Guide.MD', text: '# Guide\n\n```js\nrun()\n```\n' })
    expect(codeSnippets(md)[0].codeList).toEqual([{ language: 'javascript', code: 'run()' }])
    const rst = parseDocument({ path: 'docs/guide.rst', text: 'Guide\n=====\n\n.. code-block:: py\n\n   run()\n' })
    expect(codeSnippets(rst)[0]).toMatchObject({ title: 'Guide', codeList: [{ language: 'python', code: 'run()' }] })
    const mdx = parseDocument({ path: 'docs/guide.mdx', text: 'import X from "x"\n\n<CodeGroup>\n```js\na()\n```\n```ts\nb()\n```\n</CodeGroup>\n' })
    expect(codeSnippets(mdx)[0].codeList).toHaveLength(2)
    expect(parseDocument({ path: 'nb.ipynb', text: 'not json' })).toEqual([])
  })

  it('reads plain text as markdown paragraphs', () => {
    const text = 'Lectern keeps every library in its own directory.\nEach directory holds the parsed snippets and an index.\n\nBackups copy the data directory while the server is stopped, which keeps the database consistent.\n'
    const info = infoSnippets(parseDocument({ path: 'NOTES.txt', text }))
    expect(info).toHaveLength(1)
    expect(info[0]).toMatchObject({ pageTitle: 'NOTES', breadcrumb: '', anchor: '' })
    expect(info[0].content).toBe(
      'Lectern keeps every library in its own directory. Each directory holds the parsed snippets and an index.\n\nBackups copy the data directory while the server is stopped, which keeps the database consistent.',
    )
  })

  it('returns [] for files no parser reads', () => {
    expect(parseDocument({ path: 'src/index.ts', text: 'export {}' })).toEqual([])
    expect(parseDocument({ path: 'Makefile', text: 'all:' })).toEqual([])
  })
})
