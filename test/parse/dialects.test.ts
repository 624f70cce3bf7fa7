import { describe, expect, it } from 'vitest'
import { parseMarkdown } from '../../src/parse/markdown.js'
import { codeSnippets, dedent, infoSnippets } from './helpers.js'

const parse = (text: string, mdx = false) => parseMarkdown({ path: 'docs/page.md', text: dedent(text) }, { mdx })
const prose = (text: string, mdx = false) => infoSnippets(parse(text, mdx)).map((s) => s.content).join('\n')

const LONG = 'this paragraph explains enough about the feature that it makes an info snippet of its own when read'

describe('admonitions read as prose with their title, never as raw markers or code', () => {
  it('MkDocs !!! and ??? with indented bodies', () => {
    const text = prose(`
      # Page

      !!! warning "Mind the cache"
          When the cache is warm, ${LONG}.

      ??? tip
          A collapsed tip: ${LONG}.
    `)
    expect(text).toContain('Warning: Mind the cache')
    expect(text).toContain('When the cache is warm')
    expect(text).toContain('Tip')
    expect(text).not.toMatch(/!!!|\?\?\?/)
    expect(codeSnippets(parse(`# P\n\n!!! note\n    Indented prose that markdown would read as code: ${LONG}.\n`))).toEqual([])
  })

  it('pymdownx /// blocks, Docusaurus :::tip and VitePress ::: containers, in Markdown and MDX', () => {
    for (const mdx of [false, true]) {
      const text = prose(
        `
        # Page

        /// note | Before you start
        Install the package first: ${LONG}.
        ///

        :::tip Use the CLI
        The CLI is faster: ${LONG}.
        :::

        :::danger[Data loss]
        Back up first: ${LONG}.
        :::

        ::: warning
        VitePress warning: ${LONG}.
        :::
      `,
        mdx,
      )
      expect(text).toContain('Note: Before you start')
      expect(text).toContain('Tip: Use the CLI')
      expect(text).toContain('Danger: Data loss')
      expect(text).toContain('Warning')
      expect(text).not.toMatch(/:::|\/\/\//)
    }
  })

  it("Nuxt's MDC components: props and slot markers are configuration, the text reads; ::tip is an aside", () => {
    const text = prose(`
      # Releases

      ::card-group
        ::card
        ---
        icon: i-simple-icons-github
        title: nuxt/nuxt
        to: https://github.com/nuxt/nuxt/releases
        ---
        #title
        Nuxt framework releases, ${LONG}.
        ::
      ::

      ::tip{icon="i-lucide-lightbulb"}
      Keep modules updated, ${LONG}.
      ::
    `)
    expect(text).toContain('Nuxt framework releases')
    expect(text).toMatch(/Tip[\s>]+Keep modules updated/)
    expect(text).not.toMatch(/icon:|to: https|#title|::/)
  })

  it('code inside an admonition stays a code snippet', () => {
    const [code] = codeSnippets(parse('# P\n\n## Setup\n\n!!! example\n    Run:\n\n    ```bash\n    pip install x\n    ```\n'))
    expect(code.codeList).toEqual([{ language: 'bash', code: 'pip install x' }])
  })
})

describe('tabbed alternatives stay one code snippet with several examples', () => {
  it('pymdownx === tabs', () => {
    const snippets = parse(`
      # Models

      ## Define a model

      Declare the fields:

      === "Python 3.10+"

          \`\`\`python
          def f(x: int | None): ...
          \`\`\`

      === "Python 3.8+"

          \`\`\`python
          def f(x: Optional[int]): ...
          \`\`\`
    `)
    const code = codeSnippets(snippets)
    expect(code).toHaveLength(1)
    expect(code[0]).toMatchObject({ title: 'Define a model', description: 'Declare the fields:' })
    expect(code[0].codeList.map((c) => c.code)).toEqual(['def f(x: int | None): ...', 'def f(x: Optional[int]): ...'])
  })

  it('pymdownx /// tab blocks and VitePress ::: code-group', () => {
    const tabs = codeSnippets(parse('# P\n\n## Install\n\n/// tab | pip\n```bash\npip install x\n```\n///\n\n/// tab | uv\n```bash\nuv add x\n```\n///\n'))
    expect(tabs).toHaveLength(1)
    expect(tabs[0].codeList.map((c) => c.code)).toEqual(['pip install x', 'uv add x'])
    const group = codeSnippets(parse('# P\n\n## Install\n\n::: code-group\n\n```sh [npm]\nnpm add vue\n```\n\n```sh [pnpm]\npnpm add vue\n```\n\n:::\n'))
    expect(group).toHaveLength(1)
    expect(group[0].codeList.map((c) => c.code)).toEqual(['npm add vue', 'pnpm add vue'])
  })

  it('a tab labelled with code (`docs/page.md`) keeps its fence: the label loses its backticks, the heading in the fence stays code', () => {
    const page = '# Search\n\n## Exclude sections\n\nAdd the pragma:\n\n=== ":octicons-file-code-16: `docs/page.md`"\n\n    ``` markdown\n    # Page title\n\n    ## Section 2 { data-search-exclude }\n    ```\n\n=== "`search_index.json`"\n\n    ``` json\n    { "docs": [] }\n    ```\n'
    const snippets = parseMarkdown({ path: 'docs/search.md', text: page }, { mdx: false })
    expect(snippets.map((s) => s.breadcrumb)).toEqual(['Search > Exclude sections'])
    expect(codeSnippets(snippets)[0].codeList.map((c) => c.code)).toEqual(['# Page title\n\n## Section 2 { data-search-exclude }', '{ "docs": [] }'])
  })

  it('a group never swallows the unrelated block after it', () => {
    const code = codeSnippets(parse('# P\n\n=== "A"\n\n    ```python\n    a()\n    ```\n\n=== "B"\n\n    ```python\n    b()\n    ```\n\n```python\nc()\n```\n'))
    expect(code.map((c) => c.codeList.length)).toEqual([2, 1])
  })

  it('markers inside fences are code, not syntax', () => {
    const [code] = codeSnippets(parse('# P\n\n```text\n!!! note\n:::tip\n=== "x"\n```\n'))
    expect(code.codeList[0].code).toBe('!!! note\n:::tip\n=== "x"')
  })
})
