import { describe, expect, it } from 'vitest'
import { parseMarkdown } from '../../src/parse/markdown.js'
import { countTokens } from '../../src/text/tokens.js'
import { codeSnippets, dedent, infoSnippets } from './helpers.js'

const README = dedent(`
  <!-- badges -->
  [![npm](https://img.shields.io/npm/v/lectern.svg)](https://npm.im/lectern) [![CI](https://github.com/acme/lectern/actions/workflows/ci.yml/badge.svg)](https://github.com/acme/lectern/actions)

  # Lectern

  Lectern is a self-hosted documentation server. It reads the docs of your libraries and serves
  the best [code snippets](https://example.com/snippets) for a question.

  ![architecture](./docs/architecture.png)

  ## Installation

  Install the CLI globally:

  \`\`\`sh
  npm install -g lectern
  \`\`\`

  Then start the server:

  \`\`\`console title="Terminal"
  $ lectern serve --port 3000
  \`\`\`

  ## Configuration

  Lectern reads its settings from the environment. Every option has a default, so an empty
  environment gives a working server on port 3000.

  | Option | Default | Description |
  |--------|---------|-------------|
  | \`port\` | \`3000\` | Port the server listens on |
  | \`dataDir\` | \`~/.lectern\` | Where libraries are stored |

  ### Example

  \`\`\`ts
  import { serve } from 'lectern'

  await serve({
    port: 3000,
  })
  \`\`\`
  \`\`\`js
  const { serve } = require('lectern')

  serve({ port: 3000 })
  \`\`\`

  ## Usage

  1. Add a library:

     \`\`\`bash
     lectern add github.com/acme/router
     \`\`\`

  2. Query it with \`lectern query\`.

  ## Usage

  \`\`\`yml
  port: 3000
  \`\`\`

  \`\`\`yml
  dataDir: /srv/lectern
  \`\`\`
`)

describe('parseMarkdown: a GFM README', () => {
  const snippets = parseMarkdown({ path: 'README.md', text: README }, { mdx: false })
  const code = codeSnippets(snippets)
  const info = infoSnippets(snippets)

  it('takes the page title from the first H1 and builds heading trails', () => {
    expect(new Set(snippets.map((s) => s.pageTitle))).toEqual(new Set(['Lectern']))
    expect(code[0]).toMatchObject({ breadcrumb: 'Lectern > Installation', anchor: 'installation' })
    expect(code.find((s) => s.anchor === 'example')?.breadcrumb).toBe('Lectern > Configuration > Example')
  })

  it('titles a block after its heading or its own title meta, and describes it with the prose before it', () => {
    expect(code[0]).toMatchObject({
      title: 'Installation',
      description: 'Install the CLI globally:',
      codeList: [{ language: 'bash', code: 'npm install -g lectern' }],
    })
    expect(code[1]).toMatchObject({
      title: 'Terminal',
      description: 'Then start the server:',
      codeList: [{ language: 'bash', code: '$ lectern serve --port 3000' }],
    })
  })

  it('groups adjacent blocks in different languages into one snippet, keeping indentation', () => {
    const example = code.find((s) => s.anchor === 'example')!
    expect(example.title).toBe('Example')
    expect(example.codeList.map((c) => c.language)).toEqual(['typescript', 'javascript'])
    expect(example.codeList[0].code).toBe("import { serve } from 'lectern'\n\nawait serve({\n  port: 3000,\n})")
  })

  it('keeps code inside list items as code, described by the item text', () => {
    const add = code.find((s) => s.codeList[0].code.startsWith('lectern add'))!
    expect(add).toMatchObject({ anchor: 'usage', description: '1. Add a library:' })
  })

  it('gives duplicate headings suffixed anchors and does not group same-language blocks', () => {
    const second = code.filter((s) => s.anchor === 'usage-1')
    expect(second.map((s) => s.codeList.length)).toEqual([1, 1])
    expect(second.map((s) => s.codeList[0].language)).toEqual(['yaml', 'yaml'])
  })

  it('turns section prose into info snippets without badges, images, comments or code', () => {
    const intro = info.find((s) => s.anchor === 'lectern')!
    expect(intro.content).toBe(
      'Lectern is a self-hosted documentation server. It reads the docs of your libraries and serves the best code snippets for a question.',
    )
    const all = info.map((s) => s.content).join('\n')
    expect(all).not.toMatch(/badge|shields|architecture|<!--|npm install/)
  })

  it('renders tables back to markdown rows and skips sections with trivial prose', () => {
    const config = info.find((s) => s.anchor === 'configuration')!
    expect(config.content).toContain('| Option | Default | Description |\n| --- | --- | --- |\n| `port` | `3000` | Port the server listens on |')
    expect(info.find((s) => s.anchor === 'installation')).toBeUndefined()
  })

  it('describes a block with the prose right before it, not with a table in between', () => {
    const text = '## Ports\n\nPick a port.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\nlectern serve\n```\n'
    const [snippet] = codeSnippets(parseMarkdown({ path: 'ports.md', text }, { mdx: false }))
    expect(snippet.description).toBe('')
  })
})

describe('parseMarkdown: front matter, long sections, plain text', () => {
  it('takes the front-matter title as page title and never emits front matter as content', () => {
    const text = dedent(`
      ---
      title: "Routing guide"
      sidebar_position: 2
      ---

      Routes map a method and a path to a handler. Register them before the server starts listening for requests.
    `)
    const [snippet] = parseMarkdown({ path: 'docs/routing.md', text }, { mdx: false })
    expect(snippet).toMatchObject({ kind: 'info', pageTitle: 'Routing guide', breadcrumb: '', anchor: '' })
    expect(JSON.stringify(snippet)).not.toContain('sidebar_position')
  })

  it('falls back to the file name for the page title', () => {
    const [snippet] = parseMarkdown({ path: 'docs/getting-started.md', text: '```py\nprint(1)\n```' }, { mdx: false })
    expect(snippet).toMatchObject({ pageTitle: 'getting-started', title: 'getting-started', codeList: [{ language: 'python' }] })
  })

  it('splits a long section into info snippets within the token bound', () => {
    const paragraph = 'The scheduler keeps a queue of jobs and runs them in order of priority, retrying failures with backoff. '.repeat(8)
    const text = `# Scheduler\n\n${Array.from({ length: 12 }, () => paragraph.trim()).join('\n\n')}\n`
    const info = infoSnippets(parseMarkdown({ path: 'scheduler.md', text }, { mdx: false }))
    expect(info.length).toBeGreaterThan(1)
    for (const part of info) {
      expect(countTokens(part.content)).toBeLessThanOrEqual(700)
      expect(part).toMatchObject({ breadcrumb: 'Scheduler', anchor: 'scheduler' })
    }
  })

  it('drops empty code blocks and trailing whitespace', () => {
    const text = '# T\n\n```js\n\n```\n\n```js\nconst a = 1   \n\n\n```\n'
    const code = codeSnippets(parseMarkdown({ path: 't.md', text }, { mdx: false }))
    expect(code.map((s) => s.codeList)).toEqual([[{ language: 'javascript', code: 'const a = 1' }]])
  })

  it('reads a centred html h1 as the page title and skips a logo-only heading', () => {
    const text = dedent(`
      <p align="center"><img src="logo.svg" width="120"></p>
      <h1 align="center">Lectern</h1>

      # ![logo](logo.svg)

      ## Quick start {#start}

      \`\`\`bash
      npx lectern serve
      \`\`\`
    `)
    const [snippet] = codeSnippets(parseMarkdown({ path: 'README.md', text }, { mdx: false }))
    expect(snippet).toMatchObject({ pageTitle: 'Lectern', breadcrumb: 'Lectern > Quick start', anchor: 'start', title: 'Quick start' })
  })

  it('names an untitled README or index page after its directory', () => {
    const text = '```js\nrun()\n```\n'
    expect(parseMarkdown({ path: 'docs/routing/index.md', text }, { mdx: false })[0].pageTitle).toBe('routing')
    expect(parseMarkdown({ path: 'README.md', text }, { mdx: false })[0].pageTitle).toBe('README')
  })

  it('drops in-page tables of contents', () => {
    const text = '# Guide\n\n- [Install](#install)\n- [Usage](#usage)\n  - [Routes](#routes)\n\nThe guide explains how to install Lectern and how to register and query the routes of an application.\n'
    const [info] = infoSnippets(parseMarkdown({ path: 'guide.md', text }, { mdx: false }))
    expect(info.content).toBe('The guide explains how to install Lectern and how to register and query the routes of an application.')
  })
})
