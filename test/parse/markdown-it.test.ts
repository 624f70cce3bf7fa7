import type { Nodes } from 'mdast'
import { describe, expect, it, vi } from 'vitest'
import type { ParsedSnippet } from '../../src/parse/types.js'
import { codeSnippets, dedent, infoSnippets, remarkTree } from './helpers.js'

// Plain markdown goes through markdown-it; this switch sends it through remark (remark-parse +
// remark-gfm, the reader markdown used before) so one document can be read both ways.
const parser = vi.hoisted(() => ({ remark: false, remarkReads: 0 }))

vi.mock('../../src/parse/markdown-it.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/parse/markdown-it.js')>()
  const helpers = await import('./helpers.js')
  return { markdownItTree: (body: string) => (parser.remark ? (parser.remarkReads++, helpers.remarkTree(body)) : actual.markdownItTree(body)) }
})

// Evaluated anew, so it imports the mock above even when another test file of this worker
// loaded it first (test files share their worker's modules: vitest.config.ts, isolate).
vi.resetModules()
const { parseMarkdown } = await import('../../src/parse/markdown.js')

function parseWith(remark: boolean, path: string, text: string): ParsedSnippet[] {
  parser.remark = remark
  const reads = parser.remarkReads
  try {
    return parseMarkdown({ path, text }, { mdx: false })
  } finally {
    parser.remark = false
    // Read both ways for real: the mock reached the parser.
    if (remark) expect(parser.remarkReads).toBeGreaterThan(reads)
  }
}

const GUIDE = dedent(`
  ---
  title: 'Router guide'
  ---

  <!-- generated badges -->
  [![npm](https://img.shields.io/npm/v/router.svg)](https://npm.im/router) [![CI](https://ci.example.com/badge.svg)](https://ci.example.com)

  <p align="center"><img src="logo.svg" width="120"></p>
  <h1 align="center">Router</h1>

  - [Install](#install)
  - [Routes](#routes)
    - [Parameters](#parameters)

  The router maps a method and a path to a handler. It is **fast**, has _no_ dependencies, and
  supports ~~callbacks~~ promises &amp; async functions; see <https://example.com/router> or
  [the API](#api). Paths use \`/users/:id\` syntax.

  ## Install {#install}

  Add it with npm:

  \`\`\`sh
  npm install router
  \`\`\`

  ~~~console title="Terminal"
  $ npx router --version
  ~~~

  ## Routes

  Register a route before the server starts listening:

  \`\`\`js title="server.js" {3-5}
  import { router } from 'router'

  router.get('/users/:id', (req) => {
    return req.params.id
  })
  \`\`\`
  \`\`\`ts
  router.get('/users/:id', (req: Request) => req.params.id)
  \`\`\`

  > [!WARNING]
  > Routes registered after \`listen()\` are ignored.
  > Register them first.

  :::tip
  Group routes with prefixes to keep large apps readable.
  :::

  Parameters
  ----------

  | Option | Type | Description |
  |--------|:----:|-------------|
  | \`id\` | \`string \\| number\` | The path parameter, *decoded* |
  | \`query\` | \`object\` | Parsed query string |

  Steps to add a parameter:

  3. Declare it in the path:

     \`\`\`js
     router.get('/files/:name', handler)
     \`\`\`

  4. Read it from \`req.params\`.
     It is always a string.

  Checklist before a release:

  - [x] Routes are registered
  - [X] Parameters are validated
  - [ ] Errors are handled
    - nested note with a [link](https://example.com)

  Output of a request, indented the old way:

      GET /users/1
      200 OK

  ### Sphinx-style blocks

  \`\`\`{code-block} python
  :caption: app.py

  app.route('/')
  \`\`\`

  \`\`\`{note}
  Prefer the JavaScript API in new code.
  \`\`\`

  <details>
  <summary>Why not regular expressions?</summary>

  They are slower to match and harder to read than path patterns. The router compiles patterns once,
  at registration time, so matching stays a lookup per request.

  </details>

  ***

  See the [reference][ref] for every option.\\
  A line after a hard break[^break].

  [ref]: https://example.com/reference
  [^break]: A backslash at the end of a line, or two spaces.
`)

describe('markdown-it and remark read the same GFM document alike', () => {
  const viaRemark = parseWith(true, 'docs/router.md', GUIDE)
  const viaMarkdownIt = parseWith(false, 'docs/router.md', GUIDE)

  it('produces identical snippets', () => {
    expect(viaRemark.length).toBeGreaterThan(5)
    expect(viaMarkdownIt).toEqual(viaRemark)
  })

  it('keeps headings, anchors, code languages and titles', () => {
    const code = codeSnippets(viaMarkdownIt)
    expect(new Set(viaMarkdownIt.map((s) => s.pageTitle))).toEqual(new Set(['Router guide']))
    expect(code.map((s) => [s.anchor, s.title, s.codeList.map((c) => c.language)])).toEqual([
      ['install', 'Install', ['bash']],
      ['install', 'Terminal', ['bash']],
      ['routes', 'Routes', ['javascript', 'typescript']],
      ['parameters', 'Parameters', ['javascript']],
      ['parameters', 'Parameters', ['text']],
      ['sphinx-style-blocks', 'app.py', ['python']],
    ])
    expect(code[2].breadcrumb).toBe('Router > Routes')
    expect(code[4].codeList[0].code).toBe('GET /users/1\n200 OK')
    expect(code[5].codeList[0].code).toBe("app.route('/')")
  })

  it('describes code with the prose before it, including list steps and task lists', () => {
    const code = codeSnippets(viaMarkdownIt)
    expect(code[0].description).toBe('Add it with npm:')
    expect(code[2].description).toBe('Register a route before the server starts listening:')
    expect(code[3].description).toBe('Steps to add a parameter:\n\n3. Declare it in the path:')
    expect(code[4].description).toBe(
      'Checklist before a release:\n\n- [x] Routes are registered\n- [x] Parameters are validated\n- [ ] Errors are handled\n  - nested note with a link\n\nOutput of a request, indented the old way:',
    )
  })

  it('renders prose, tables, lists, alerts and html without markup noise', () => {
    const info = infoSnippets(viaMarkdownIt)
    const intro = info.find((s) => s.breadcrumb === 'Router' && s.anchor === '')!.content
    expect(intro).toBe(
      'The router maps a method and a path to a handler. It is fast, has no dependencies, and supports callbacks promises & async functions; see https://example.com/router or the API. Paths use `/users/:id` syntax.',
    )
    const all = info.map((s) => s.content).join('\n')
    expect(all).toContain('> Warning: Routes registered after `listen()` are ignored. Register them first.')
    expect(all).toContain('| Option | Type | Description |\n| --- | --- | --- |\n| `id` | `string \\| number` | The path parameter, decoded |')
    expect(all).toContain('4. Read it from `req.params`. It is always a string.')
    expect(all).toContain('Note: Prefer the JavaScript API in new code.')
    expect(all).toContain('Why not regular expressions?')
    expect(all).toContain('See the reference for every option. A line after a hard break.')
    expect(all).toContain('A backslash at the end of a line, or two spaces.')
    expect(all).not.toMatch(/shields|badge|logo|generated|:::|\[!WARNING\]|\(#install\)|\[\^break\]/)
  })
})

describe('markdownItTree', () => {
  /** The fields markdown.ts reads from code and list nodes, in document order. */
  function shapes(node: Nodes): unknown[] {
    const own =
      node.type === 'code' ? [{ lang: node.lang, meta: node.meta, value: node.value }]
      : node.type === 'list' ? [{ ordered: node.ordered, start: node.start }]
      : node.type === 'listItem' ? [{ checked: node.checked }]
      : []
    return 'children' in node ? [...own, ...node.children.flatMap((child) => shapes(child))] : own
  }

  it('splits fence info strings and reads lists like remark', async () => {
    const { markdownItTree } = await vi.importActual<typeof import('../../src/parse/markdown-it.js')>('../../src/parse/markdown-it.js')
    const text = dedent(`
      \`\`\`js title="server.js" {3-5}
      a
      \`\`\`

      \`\`\`  py   linenos
      b

      \`\`\`

      ~~~
      c
      ~~~

      \`\`\`{code-block} python
      :caption: x
      d
      \`\`\`

      \`\`\`js title=\\"a\\" &amp;
      e
      \`\`\`

          indented

      Lists:

      7. seven
      8. eight

      - [x] done
      - [ ]
      - [X]	upper
    `)
    const tree = markdownItTree(text)
    expect(shapes(tree)).toEqual(shapes(remarkTree(text)))
    expect(shapes(tree)).toHaveLength(13)
    expect(shapes(tree)[0]).toEqual({ lang: 'js', meta: 'title="server.js" {3-5}', value: 'a' })
  })

  it('keeps the text of emphasis nested deeper than the stack allows', () => {
    const text = `# Deep\n\n${'*'.repeat(5000)}Nested emphasis keeps its words${'*'.repeat(5000)} and the prose after it still reads as usual, every word of it, in one section.\n`
    const [info] = infoSnippets(parseMarkdown({ path: 'deep.md', text }, { mdx: false }))
    expect(info.content).toContain('Nested emphasis keeps its words')
    expect(info.content).toContain('and the prose after it still reads as usual')
  })
})
