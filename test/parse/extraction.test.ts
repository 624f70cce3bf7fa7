import { describe, expect, it } from 'vitest'
import { guessLanguage } from '../../src/parse/guess-language.js'
import { inspectDocument } from '../../src/extraction/document-report.js'
import { parseMarkdown } from '../../src/parse/markdown.js'
import { literalMarkdown, readLiteral } from '../../src/parse/mdx-props.js'
import { parseRst } from '../../src/parse/rst.js'
import { codeSnippets, dedent, infoSnippets, repo } from './helpers.js'

const md = (text: string, mdx = false) => parseMarkdown({ path: 'docs/page.mdx', text: dedent(text) }, { mdx })
const LONG = 'which explains enough about the behaviour that the section makes an info snippet of its own'


describe('heading ids and anchors', () => {
  it('{#id}, { #id .class } and MDX comment ids give the text and the anchor, with no doubled slug', () => {
    for (const mdx of [false, true]) {
      const snippets = md(
        `
        # Page

        ## Install the CLI {#install}

        Prose ${LONG}.

        ## Configure it { #configure .tabbed }

        Prose ${LONG}.
      `,
        mdx,
      )
      expect(infoSnippets(snippets).map((s) => [s.breadcrumb, s.anchor])).toEqual([
        ['Page > Install the CLI', 'install'],
        ['Page > Configure it', 'configure'],
      ])
    }
    const [mdxId] = infoSnippets(md(`# Page\n\n## Deploy {/*deploy-now*/}\n\nProse ${LONG}.\n`, true))
    expect(mdxId).toMatchObject({ breadcrumb: 'Page > Deploy', anchor: 'deploy-now' })
  })

  it("MDX's comment id in a .md page (React's docs), kramdown's {: #id} and {: .no_toc} (Jekyll): a clean title and the id as the anchor", () => {
    for (const path of ['src/content/learn/effects.md', 'docs/page.mdx']) {
      const page = `# Effects\n\n### My Effect runs twice {/*my-effect-runs-twice*/}\n\nProse ${LONG}.\n\n\`\`\`js\nuseEffect(() => {})\n\`\`\`\n`
      const snippets = parseMarkdown({ path, text: page }, { mdx: path.endsWith('.mdx') })
      expect(codeSnippets(snippets).map((s) => [s.title, s.breadcrumb, s.anchor])).toEqual([['My Effect runs twice', 'Effects > My Effect runs twice', 'my-effect-runs-twice']])
    }
    const kramdown = md(`# Guide {: .no_toc }\n\n## Install it {: #install-it-now }\n\nProse ${LONG}.\n`)
    expect(infoSnippets(kramdown).map((s) => [s.breadcrumb, s.anchor])).toEqual([['Guide > Install it', 'install-it-now']])
    // kramdown's usual form: the attribute list on the line under the heading; under a paragraph it is the paragraph's.
    const nextLine = md(`# Guide\n{: .no_toc}\n\n## Install it\n{: #install_it_now .big}\n\nProse ${LONG}.\n{: .note}\n`)
    expect(infoSnippets(nextLine).map((s) => [s.breadcrumb, s.anchor, s.content.includes('{:')])).toEqual([['Guide > Install it', 'install_it_now', false]])
    const page = { path: 'docs/ial.md', text: `# Guide\n\n## Next line heading\n{: #next-line}\n\nProse ${LONG}.\n` }
    expect(inspectDocument(page, parseMarkdown(page, { mdx: false }), [], {}).undefinedAnchors).toEqual([])
    // In a fence it is code, and stays as written.
    const [code] = codeSnippets(md('# A\n\n## B\n\n```md\n### Title {/*id*/}\n```\n'))
    expect(code.codeList[0].code).toBe('### Title {/*id*/}')
  })

  it("keeps an id's underscores (React's `{/*where-you-_can_-cause*/}`), and a raw HTML heading without an id links to its section", () => {
    const [react] = codeSnippets(md('# Purity\n\n### Where you _can_ cause side effects {/*where-you-_can_-cause-side-effects*/}\n\nUse an event handler:\n\n```js\nonClick()\n```\n'))
    expect([react.title, react.anchor]).toEqual(['Where you can cause side effects', 'where-you-_can_-cause-side-effects'])
    const [kramdown] = codeSnippets(md('# A\n\n## Set it {#set_it_now}\n\nLike so:\n\n```js\nset()\n```\n'))
    expect(kramdown.anchor).toBe('set_it_now')
    const html = md(`# Assets\n\n## Sass\n\nThe Sass converter reads partials from the sass folder, ${LONG}.\n\n<div class="note">\n  <h5>The sass_dir is only used by Sass</h5>\n  <p>Note this: ${LONG}.</p>\n</div>\n\n<h3 id="custom">Custom</h3>\n\n<p>Custom text ${LONG}.</p>\n`)
    expect(infoSnippets(html).map((s) => [s.breadcrumb.split(' > ').at(-1), s.anchor])).toEqual([
      ['Sass', 'sass'],
      ['The sass_dir is only used by Sass', 'sass'],
      ['Custom', 'custom'],
    ])
  })

  it('reStructuredText sections take docutils ids', () => {
    const [info] = infoSnippets(parseRst({ path: 'docs/x.rst', text: `Writing views\n=============\n\nThe view layer, ${LONG}.\n` }))
    expect(info.anchor).toBe('writing-views')
    const [punct] = infoSnippets(parseRst({ path: 'docs/x.rst', text: `2. Model.save() and friends\n===========================\n\nSaving, ${LONG}.\n` }))
    expect(punct.anchor).toBe('model-save-and-friends')
  })

  it('MyST Markdown pages of a Sphinx site take docutils ids too; Markdown elsewhere keeps GitHub slugs', () => {
    const text = `# Options\n\n## Multi Value Options (\`nargs=2\`)\n\nProse ${LONG}.\n`
    const sphinx = { sphinx: { root: 'docs', suffixes: ['.rst'] } }
    const [myst] = infoSnippets(parseMarkdown({ path: 'docs/options.md', text }, { mdx: false }, sphinx))
    expect(myst.anchor).toBe('multi-value-options-nargs-2')
    const [outside] = infoSnippets(parseMarkdown({ path: 'README.md', text }, { mdx: false }, sphinx))
    expect(outside.anchor).toBe('multi-value-options-nargs2')
  })
})

describe('MDX content in props and exports', () => {
  it('indexes string and array props, children of unknown components and exported metadata; not import/export statements', () => {
    const snippets = md(
      `
      import { Table } from '../components'
      export const title = "Routing reference"
      export const description = "Every option of the router with its default and what it changes in production builds."

      ## Options

      <OptionTable rows={[["basePath", "Prefix of every route"], ["trailingSlash", "Whether URLs end with a slash"]]} />

      <Card title="Dynamic routes" description="Use brackets in file names to capture URL segments as parameters">
        Unknown components keep their children: ${LONG}.
      </Card>
    `,
      true,
    )
    const info = infoSnippets(snippets)
    const text = info.map((s) => s.content).join('\n')
    expect(info[0].pageTitle).toBe('Routing reference')
    expect(text).toContain('Every option of the router')
    expect(text).toContain('| basePath | Prefix of every route |')
    expect(text).toContain('Use brackets in file names')
    expect(text).toContain('Unknown components keep their children')
    expect(text).not.toMatch(/import \{|export const/)
  })

  it('asides and inline CodeBlocks', () => {
    const snippets = md(
      `
      # Page

      ## Deploy

      <Aside type="caution" title="Mind the cache">
      Clear it first, ${LONG}.
      </Aside>

      <CodeBlock language="bash" title="deploy.sh">{\`npm run deploy\`}</CodeBlock>
    `,
      true,
    )
    expect(infoSnippets(snippets).map((s) => s.content).join('\n')).toContain('Caution: Mind the cache: Clear it first')
    expect(codeSnippets(snippets)[0]).toMatchObject({ title: 'deploy.sh', codeList: [{ language: 'bash', code: 'npm run deploy' }] })
  })

  it('reads literals without evaluating anything', () => {
    expect(readLiteral("[['a', \"b\"], [1, true]]")).toEqual([['a', 'b'], [1, true]])
    expect(readLiteral('{ name: "x", "other-key": [null] }')).toEqual({ name: 'x', 'other-key': [null] })
    expect(readLiteral('fetch("https://evil")')).toBeUndefined()
    expect(readLiteral('`${process.env.X}`')).toBeUndefined()
    expect(literalMarkdown([{ a: 1, b: 'x' }, { a: 2 }])).toBe('| a | b |\n| --- | --- |\n| 1 | x |\n| 2 |  |')
  })
})

describe('code as its reader sees it', () => {
  it('strips Shiki markers, twoslash set-up and queries, and Material annotation markers', () => {
    const [code] = codeSnippets(
      md(`
      # Page

      \`\`\`ts twoslash
      // @errors: 2322
      import { ref } from 'vue'
      // ---cut---
      const count = ref(0) // [!code highlight]
      //    ^?
      count.value++ // [!code ++]
      \`\`\`

      \`\`\`python
      class User(BaseModel):
          id: int  # (1)!
      \`\`\`
    `),
    )
    expect(code.codeList.map((c) => c.code)).toEqual(['const count = ref(0)\ncount.value++', 'class User(BaseModel):\n    id: int'])
  })

  it('strips Shiki markers written as HTML comments', () => {
    const [code] = codeSnippets(md('# Page\n\n```vue\n<template>\n  <div>{{ count }}</div> <!-- [!code focus] -->\n</template>\n```\n'))
    expect(code.codeList[0].code).toBe('<template>\n  <div>{{ count }}</div>\n</template>')
  })

  it('gives rST literal blocks the highlight language, else the project default, else a guess', () => {
    const text = `Title\n=====\n\nRun::\n\n    $ pip install django\n\nThen::\n\n    from django.db import models\n`
    expect(codeSnippets(parseRst({ path: 'a.rst', text })).map((s) => s.codeList[0].language)).toEqual(['bash', 'python'])
    expect(codeSnippets(parseRst({ path: 'a.rst', text: `T\n=\n\nShow::\n\n    {{ value|date }}\n` }, { literalLanguage: 'python' }))[0].codeList[0].language).toBe('python')
    expect(codeSnippets(parseRst({ path: 'a.rst', text: `T\n=\n\n.. highlight:: html+django\n\nShow::\n\n    {{ value }}\n` }, { literalLanguage: 'python' }))[0].codeList[0].language).toBe('html+django')
    expect(guessLanguage('This is just a sentence about the thing.')).toBe('text')
  })
})

describe('Sphinx includes', () => {
  const files = {
    'docs/examples/app.py': 'import click\n\n@click.command()\ndef hello(name):\n    """Greet."""\n    click.echo(name)\n\nclass Other:\n    pass\n',
    'docs/_parts/note.rst': `Shared part\n-----------\n\nThis part is included by several pages, ${LONG}.\n`,
  }

  it('literalinclude with :pyobject:, :lines:, markers and :language:, recording the file', () => {
    const text = dedent(`
      Greeting
      ========

      A command:

      .. literalinclude:: examples/app.py
         :pyobject: hello
         :emphasize-lines: 2

      Only the import:

      .. literalinclude:: /examples/app.py
         :lines: 1
         :language: python3
    `)
    const code = codeSnippets(parseRst({ path: 'docs/greeting.rst', text }, { includes: repo(files), siteRoots: ['docs'] }))
    expect(code[0]).toMatchObject({ title: 'Greeting', includes: ['docs/examples/app.py'], codeList: [{ language: 'python', code: '@click.command()\ndef hello(name):\n    """Greet."""\n    click.echo(name)' }] })
    expect(code[1].codeList[0]).toEqual({ language: 'python', code: 'import click' })
  })

  it('literalinclude with :start-after: and :end-before: takes only the text between the markers', () => {
    const text = dedent(`
      Setup
      =====

      The fixture:

      .. literalinclude:: examples/conftest.py
         :start-after: # begin fixture
         :end-before: # end fixture
    `)
    const reader = repo({ 'docs/examples/conftest.py': 'import pytest\n# begin fixture\n@pytest.fixture\ndef db():\n    return connect()\n# end fixture\nprint("done")\n' })
    const [code] = codeSnippets(parseRst({ path: 'docs/setup.rst', text }, { includes: reader }))
    expect(code).toMatchObject({ title: 'Setup', includes: ['docs/examples/conftest.py'], codeList: [{ language: 'python', code: '@pytest.fixture\ndef db():\n    return connect()' }] })
  })

  it('include reads the part in place; a missing one is logged', () => {
    const reader = repo(files)
    const snippets = parseRst({ path: 'docs/page.rst', text: 'Page\n====\n\n.. include:: _parts/note.rst\n\n.. include:: _parts/missing.rst\n' }, { includes: reader })
    expect(infoSnippets(snippets).map((s) => s.content).join('\n')).toContain('included by several pages')
    expect(reader.logs).toEqual(['docs/page.rst:6: include "_parts/missing.rst" not found (tried docs/_parts/missing.rst, _parts/missing.rst)'])
  })
})

describe('MyST (Markdown for Sphinx)', () => {
  it('reads {eval-rst} fences as reStructuredText and {literalinclude} as the included code', () => {
    const files = repo({ 'docs/examples/greet.py': 'import click\n\n@click.command()\ndef greet():\n    click.echo("hi")\n' })
    const page = dedent(`
      # Commands

      ## Basic command

      \`\`\`{eval-rst}
      .. click:example::

          @click.command()
          def hello():
              click.echo("Hello")
      \`\`\`

      ## Included

      \`\`\`{literalinclude} examples/greet.py
      :lines: 3-
      \`\`\`
    `)
    const code = codeSnippets(parseMarkdown({ path: 'docs/commands.md', text: page }, { mdx: false }, { includes: files }))
    expect(code.map((c) => [c.title, c.codeList[0]])).toEqual([
      ['Basic command', { language: 'python', code: '@click.command()\ndef hello():\n    click.echo("Hello")' }],
      ['Included', { language: 'python', code: '@click.command()\ndef greet():\n    click.echo("hi")' }],
    ])
  })

  it("reads a project's own directives (confval, fixture) with their argument", () => {
    const text = 'Reference\n=========\n\n.. confval:: addopts\n\n   Add the specified options to the command line as if they had been typed by the user every time.\n'
    expect(infoSnippets(parseRst({ path: 'r.rst', text }))[0].content).toContain('`addopts`')
  })
})
