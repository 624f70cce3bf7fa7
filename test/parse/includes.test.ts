import { describe, expect, it } from 'vitest'
import { includeCandidates, selectBetween, selectLines, selectPyObject, selectRegion } from '../../src/parse/includes.js'
import { parseMarkdown } from '../../src/parse/markdown.js'
import { parseRst } from '../../src/parse/rst.js'
import { codeSnippets, dedent, infoSnippets, repo } from './helpers.js'


const TUTORIAL = dedent(`
  import typer


  def main(name: str):
      print(f"Hello {name}")


  if __name__ == "__main__":
      typer.run(main)
`)

describe('include paths and selections', () => {
  it("tries the page's folder, the site folders holding the page, the others, the page's ancestors, then the root; never outside", () => {
    // FastAPI: the page is docs/en/docs/tutorial/cors.md, the path is relative to docs/en (the folder of mkdocs.yml).
    const fastapi = includeCandidates('docs/en/docs/tutorial/cors.md', '../../docs_src/cors/tutorial001.py', ['docs/en', 'docs/en/docs', 'other'])
    expect(fastapi).toEqual(['docs/en/docs_src/cors/tutorial001.py', 'docs_src/cors/tutorial001.py', 'docs/docs_src/cors/tutorial001.py'])
    // Without the mkdocs.yml in the checkout, the ancestors still find it.
    expect(includeCandidates('docs/en/docs/tutorial/cors.md', '../../docs_src/a.py')).toContain('docs_src/a.py')
    expect(includeCandidates('docs/guide/x.md', '@/snippets/a.js', ['docs'])).toEqual(['docs/snippets/a.js', 'snippets/a.js'])
    expect(includeCandidates('docs/x.rst', '/examples/a.py', ['docs'])).toEqual(['docs/examples/a.py', 'examples/a.py'])
    expect(includeCandidates('docs/x.md', '../../../etc/passwd')).toEqual([])
    expect(includeCandidates('x.md', '/etc/passwd')).toEqual(['etc/passwd'])
    expect(includeCandidates('x.md', 'https://example.com/a.py')).toEqual([])
    expect(includeCandidates('docs/a.md', 'part.md', ['site'])).toEqual(['docs/part.md', 'site/part.md', 'part.md'])
  })

  it('selects line ranges, regions, Python objects and marker spans', () => {
    const text = 'a\nb\nc\nd\ne'
    expect(selectLines(text, '2-3,5')).toBe('b\nc\ne')
    expect(selectLines(text, '4-')).toBe('d\ne')
    expect(selectLines(text, '1:2', ':')).toBe('a\nb')
    expect(selectRegion('x\n// #region setup\n  const a = 1\n// #endregion setup\ny', 'setup')).toBe('const a = 1')
    expect(selectRegion('# --8<-- [start:models]\nclass A: ...\n# --8<-- [end:models]', 'models')).toBe('class A: ...')
    expect(selectRegion('nothing here', 'setup')).toBeUndefined()
    const py = 'import x\n\n@decorator\ndef f(a):\n    return a\n\nclass C:\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n'
    expect(selectPyObject(py, 'f')).toBe('@decorator\ndef f(a):\n    return a')
    expect(selectPyObject(py, 'C.n')).toBe('def n(self):\n    return 2')
    expect(selectPyObject(py, 'missing')).toBeUndefined()
    expect(selectBetween('1\nSTART\n2\n3\nEND\n4', { startAfter: 'START', endBefore: 'END' })).toBe('2\n3')
  })
})

describe('Markdown include directives', () => {
  it("FastAPI's {* *} becomes the page's code snippet in the file's language, titled by the heading, with its path recorded", () => {
    const files = repo({ 'docs_src/first_steps/tutorial001.py': TUTORIAL })
    const page = dedent(`
      # First Steps

      ## Run it

      Create a file with:

      {* docs_src/first_steps/tutorial001.py hl[1,4] *}

      Then run it.
    `)
    const [code] = codeSnippets(parseMarkdown({ path: 'docs/tutorial/first-steps.md', text: page }, { mdx: false }, { includes: files }))
    expect(code).toMatchObject({ title: 'Run it', description: 'Create a file with:', includes: ['docs_src/first_steps/tutorial001.py'] })
    expect(code.codeList).toEqual([{ language: 'python', code: TUTORIAL.trimEnd() }])
    expect(files.logs).toEqual([])
  })

  it('honours ln[..] line selections', () => {
    const files = repo({ 'docs/docs_src/a.py': 'l1\nl2\nl3\nl4' })
    const [code] = codeSnippets(parseMarkdown({ path: 'docs/a.md', text: '# A\n\n{* docs_src/a.py ln[2:3] *}\n' }, { mdx: false }, { includes: files }))
    expect(code.codeList[0].code).toBe('l2\nl3')
  })

  it('pymdownx --8<-- inside a fence, alone, with sections, and in block form', () => {
    const files = repo({
      'docs/examples/models.py': '# --8<-- [start:model]\nclass User(BaseModel):\n    id: int\n# --8<-- [end:model]\nprint(User(id=1))',
      'docs/examples/run.sh': 'pip install pydantic',
      'docs/includes/warning.md': 'This feature is **experimental** and may change without notice in any release; pin the version you test against.',
    })
    const page = dedent(`
      # Models

      Define a model:

      \`\`\`py
      --8<-- "docs/examples/models.py:model"
      \`\`\`

      ## Install

      --8<-- "docs/examples/run.sh"

      ## Caveats

      --8<--
      docs/includes/warning.md
      --8<--
    `)
    const snippets = parseMarkdown({ path: 'docs/models.md', text: page }, { mdx: false }, { includes: files })
    const [model, install] = codeSnippets(snippets)
    expect(model).toMatchObject({ title: 'Models', includes: ['docs/examples/models.py'], codeList: [{ language: 'python', code: 'class User(BaseModel):\n    id: int' }] })
    expect(install).toMatchObject({ title: 'Install', codeList: [{ language: 'bash', code: 'pip install pydantic' }] })
    expect(infoSnippets(snippets).map((s) => s.content).join('\n')).toContain('This feature is experimental')
  })

  it('VitePress <<< with regions and languages, and <!--@include--> of Markdown parts', () => {
    const files = repo({
      'src/snippets/app.js': 'const x = 0\n// #region mount\napp.mount("#app")\n// #endregion mount\n',
      'src/parts/shared.md': 'line one\nThe shared intro explains how components are registered globally across the whole application and why local registration is preferred.\nline three',
    })
    const page = dedent(`
      # Application

      ## Mounting

      Mount the root component:

      <<< @/snippets/app.js#mount{1 ts}

      ## Shared

      <!--@include: ./parts/shared.md{2,2}-->
    `)
    const snippets = parseMarkdown({ path: 'src/guide.md', text: page }, { mdx: false }, { includes: files, siteRoots: ['src'] })
    expect(codeSnippets(snippets)[0]).toMatchObject({ title: 'Mounting', includes: ['src/snippets/app.js'], codeList: [{ language: 'typescript', code: 'app.mount("#app")' }] })
    const info = infoSnippets(snippets).map((s) => s.content).join('\n')
    expect(info).toContain('registered globally')
    expect(info).not.toContain('line one')
  })

  it('VitePress <<< relative to the page, with a #region, titled by the page heading', () => {
    const files = repo({ 'src/guide/demo/counter.ts': "import { ref } from 'vue'\n// #region state\nconst count = ref(0)\n// #endregion state\nexport { count }\n" })
    const page = dedent(`
      # Reactivity

      ## Declaring state

      <<< ./demo/counter.ts#state
    `)
    const [code] = codeSnippets(parseMarkdown({ path: 'src/guide/state.md', text: page }, { mdx: false }, { includes: files, siteRoots: ['src'] }))
    expect(code).toMatchObject({ title: 'Declaring state', includes: ['src/guide/demo/counter.ts'], codeList: [{ language: 'typescript', code: 'const count = ref(0)' }] })
  })

  it("Docusaurus raw-loader imports shown with <CodeBlock>", () => {
    const files = repo({ 'docs/examples/server.js': "const express = require('express')\nexpress().listen(3000)" })
    const page = dedent(`
      import CodeBlock from '@theme/CodeBlock'
      import Server from '!!raw-loader!./examples/server.js'

      # Server

      Start the server:

      <CodeBlock language="js" title="server.js">{Server}</CodeBlock>
    `)
    const [code] = codeSnippets(parseMarkdown({ path: 'docs/server.mdx', text: page }, { mdx: true }, { includes: files }))
    expect(code).toMatchObject({ includes: ['docs/examples/server.js'], codeList: [{ language: 'javascript', code: "const express = require('express')\nexpress().listen(3000)" }] })
  })

  it('a missing file or a path outside the repository is skipped with a logged reason', () => {
    const files = repo({})
    const page = '# A\n\n{* ../../../secrets.py *}\n\n{* docs_src/missing.py *}\n'
    expect(codeSnippets(parseMarkdown({ path: 'docs/a.md', text: page }, { mdx: false }, { includes: files }))).toEqual([])
    expect(files.logs).toEqual([
      'docs/a.md:3: include "../../../secrets.py" points outside the repository',
      'docs/a.md:5: include "docs_src/missing.py" not found (tried docs/docs_src/missing.py, docs_src/missing.py)',
    ])
  })

  it("resolves every include syntax from the site's folders: FastAPI's docs/en, pymdownx base_path, VitePress srcDir, Sphinx's source dir", () => {
    const code = 'print("hi")\n'
    const cases: Array<{ page: string; text: string; file: string; siteRoots: string[]; rst?: boolean }> = [
      { page: 'docs/en/docs/tutorial/cors.md', text: '# Cors\n\n## Use it\n\n{* ../../docs_src/cors/tutorial001_py310.py hl[2,6:11] *}\n', file: 'docs_src/cors/tutorial001_py310.py', siteRoots: ['docs/en', 'docs/en/docs'] },
      { page: 'docs/en/docs/tutorial/cors.md', text: '# Cors\n\n## Use it\n\n{* ../../docs_src/cors/tutorial001_py310.py *}\n', file: 'docs_src/cors/tutorial001_py310.py', siteRoots: [] },
      { page: 'docs/guide/usage.md', text: '# Usage\n\n## Run\n\n--8<-- "run.py"\n', file: 'snippets/run.py', siteRoots: ['', 'snippets', 'docs'] },
      { page: 'site/src/guide/usage.md', text: '# Usage\n\n## Run\n\n<<< @/examples/run.py\n', file: 'site/src/examples/run.py', siteRoots: ['site/src'] },
      { page: 'docs/guide/usage.md', text: '# Usage\n\n## Run\n\n```{literalinclude} /examples/run.py\n```\n', file: 'docs/examples/run.py', siteRoots: ['docs'] },
      { page: 'docs/guide/usage.rst', text: 'Usage\n=====\n\nRun\n---\n\n.. literalinclude:: /examples/run.py\n', file: 'docs/examples/run.py', siteRoots: ['docs'], rst: true },
    ]
    for (const { page, text, file, siteRoots, rst } of cases) {
      const files = repo({ [file]: code })
      const doc = { path: page, text }
      const snippets = rst ? parseRst(doc, { includes: files, siteRoots }) : parseMarkdown(doc, { mdx: false }, { includes: files, siteRoots })
      expect(codeSnippets(snippets).map((s) => s.includes), `${page}: ${text}`).toEqual([[file]])
      expect(files.logs).toEqual([])
      expect(files.outcomes).toEqual([expect.objectContaining({ page, resolved: file, line: expect.any(Number) })])
      expect(files.outcomes[0].line).toBeGreaterThan(1)
    }
  })

  it('mdBook {{#include}} and {{#rustdoc_include}}: whole files, anchors, line ranges, inside a fence or alone; Markdown reads in place', () => {
    const main = ['// ANCHOR: all', 'use std::io;', '', '// ANCHOR: print', 'fn main() {', '    println!("Guess the number!");', '}', '// ANCHOR_END: print', '// ANCHOR_END: all'].join('\n')
    const files = repo({ 'listings/ch02/src/main.rs': main, 'src/ch02-00-guessing.md': '## Setting up\n\nCreate a new project with Cargo, which sets up the folder and a Cargo.toml for you.\n' })
    const page = [
      '# Guessing Game {#guessing}',
      '',
      '## Print a prompt',
      '',
      'The program first prints a greeting:',
      '',
      '```rust,ignore',
      '{{#rustdoc_include ../listings/ch02/src/main.rs:print}}',
      '```',
      '',
      '## Lines',
      '',
      'Only the import:',
      '',
      '```rust',
      '{{#include ../listings/ch02/src/main.rs:2:2}}',
      '```',
      '',
      '{{#include ch02-00-guessing.md}}',
      '',
      '```rust',
      '{{#include ../listings/ch02/src/main.rs:nothing}}',
      '```',
    ].join('\n')
    const snippets = parseMarkdown({ path: 'src/ch02.md', text: page }, { mdx: false }, { includes: files })
    expect(codeSnippets(snippets).map((s) => [s.title, s.codeList[0].language, s.codeList[0].code, s.includes])).toEqual([
      ['Print a prompt', 'rust', 'fn main() {\n    println!("Guess the number!");\n}', ['listings/ch02/src/main.rs']],
      ['Lines', 'rust', 'use std::io;', ['listings/ch02/src/main.rs']],
    ])
    expect(infoSnippets(snippets).map((s) => s.breadcrumb)).toContain('Guessing Game > Setting up')
    expect(snippets.every((s) => s.anchor !== 'guessing-game-guessing')).toBe(true)
    expect(files.logs).toEqual(['src/ch02.md:22: include "../listings/ch02/src/main.rs:nothing" no anchor "nothing" in listings/ch02/src/main.rs'])
  })

  it('records each directive once: read, missing with the paths tried, or read but its region missing', () => {
    const files = repo({ 'docs/a.py': '# --8<-- [start:one]\nx = 1\n# --8<-- [end:one]\n' })
    const page = '---\ntitle: A\n---\n# A\n\n--8<-- "a.py:one"\n\n--8<-- "a.py:two"\n\n--8<-- "b.py"\n'
    parseMarkdown({ path: 'docs/p.md', text: page }, { mdx: false }, { includes: files, siteRoots: ['docs'] })
    expect(files.outcomes).toEqual([
      { page: 'docs/p.md', line: 6, reference: 'a.py:one', resolved: 'docs/a.py' },
      { page: 'docs/p.md', line: 8, reference: 'a.py:two', resolved: 'docs/a.py', problem: 'no section "two" in docs/a.py' },
      { page: 'docs/p.md', line: 10, reference: 'b.py', problem: 'not found', tried: ['docs/b.py', 'b.py'] },
    ])
  })

  it('without a repository reader the directives stay text (web sources have no repository)', () => {
    const snippets = parseMarkdown({ path: 'a.md', text: '# A\n\n{* docs_src/a.py *}\n' }, { mdx: false })
    expect(codeSnippets(snippets)).toEqual([])
  })
})

describe('MDX partials', () => {
  it('a Markdown module imported as a component reads in place, through relative paths and site aliases', () => {
    const files = repo({
      'src/mdx/$count-pg.mdx': '---\ntitle: x\n---\nUse `count()` to count the rows of a table, with or without a filter on the selected columns.\n\n```ts\nawait db.$count(users)\n```\n',
      'docs/_shared.mdx': 'Shared partial text that explains the connection string format and where the password goes in it.\n',
    })
    const page = "import Count from '@mdx/$count-pg.mdx'\nimport Shared from './_shared.mdx'\n\n# Count\n\n## Count rows\n\n<Count />\n\n## Connect\n\n<Shared/>\n"
    const snippets = parseMarkdown({ path: 'docs/count.mdx', text: page }, { mdx: true }, { includes: files, aliases: [{ pattern: '@mdx/*', targets: ['src/mdx/*'] }] })
    expect(codeSnippets(snippets)[0]).toMatchObject({
      title: 'Count rows',
      description: expect.stringContaining('count the rows of a table'),
      codeList: [{ language: 'typescript', code: 'await db.$count(users)' }],
    })
    const info = infoSnippets(snippets).map((s) => s.content).join('\n')
    expect(info).toContain('connection string format')
    expect(info).not.toContain('title: x')
    expect(files.logs).toEqual([])
  })
})
