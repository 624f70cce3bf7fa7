import { describe, expect, it } from 'vitest'
import { parseDocument } from '../../src/parse/index.js'
import { looksLikeMdx, parseMarkdown } from '../../src/parse/markdown.js'
import { codeSnippets, dedent, infoSnippets } from './helpers.js'

const DOCUSAURUS = dedent(`
  ---
  id: installation
  title: Getting Started
  sidebar_label: Start
  ---

  import Tabs from '@theme/Tabs';
  import TabItem from '@theme/TabItem';
  export const Highlight = ({children}) => <span>{children}</span>;

  Lectern turns the documentation of your libraries into snippets that an assistant can use. This page installs it.

  ## Install the package {#install}

  Add the package with the package manager your project uses:

  <Tabs groupId="pm">
    <TabItem value="npm" label="npm" default>

  \`\`\`bash
  npm install lectern
  \`\`\`

    </TabItem>
    <TabItem value="yarn" label="Yarn">

  \`\`\`bash
  yarn add lectern
  \`\`\`

    </TabItem>
    <TabItem value="pnpm" label="pnpm">

  \`\`\`bash
  pnpm add lectern
  \`\`\`

    </TabItem>
  </Tabs>

  :::tip
  Use the same package manager as your lockfile.
  :::

  ## Register a route

  Create an app and register a <Highlight>GET</Highlight> route. The handler gets the request:

  \`\`\`js title="server.js" {3-5}
  import { app } from 'lectern'

  app.get('/', (req) => {
    return 'hello'
  })
  \`\`\`

  <CodeGroup>
  \`\`\`ts app.ts
  app.listen(3000)
  \`\`\`
  \`\`\`py app.py
  app.listen(3000)
  \`\`\`
  </CodeGroup>

  ## Register a route

  Again, with a second heading of the same name that needs its own anchor in the page.
`)

describe('parseMarkdown with mdx: a Docusaurus page', () => {
  const snippets = parseMarkdown({ path: 'docs/installation.mdx', text: DOCUSAURUS }, { mdx: true })
  const code = codeSnippets(snippets)

  it('uses the front-matter title and keeps imports and exports out of the snippets', () => {
    expect(snippets.every((s) => s.pageTitle === 'Getting Started')).toBe(true)
    expect(JSON.stringify(snippets)).not.toMatch(/@theme|import Tabs|export const|sidebar_label/)
  })

  it('groups a Tabs block into one snippet with one entry per tab', () => {
    expect(code[0]).toMatchObject({
      title: 'Install the package',
      description: 'Add the package with the package manager your project uses:',
      breadcrumb: 'Install the package',
      anchor: 'install',
      codeList: [
        { language: 'bash', code: 'npm install lectern' },
        { language: 'bash', code: 'yarn add lectern' },
        { language: 'bash', code: 'pnpm add lectern' },
      ],
    })
  })

  it('reads meta titles and keeps inline component text in descriptions', () => {
    expect(code[1]).toMatchObject({
      title: 'server.js',
      description: 'Create an app and register a GET route. The handler gets the request:',
      anchor: 'register-a-route',
    })
    expect(code[1].codeList[0].code).toContain("app.get('/', (req) => {\n  return 'hello'\n})")
  })

  it('groups a CodeGroup into one snippet', () => {
    expect(code[2].codeList.map((c) => c.language)).toEqual(['typescript', 'python'])
    expect(code[2].title).toBe('Register a route')
  })

  it('suffixes the anchor of a duplicate heading', () => {
    const info = infoSnippets(snippets)
    // The install section's intro became its tab group's description, leaving only the short tip.
    expect(info.map((s) => s.anchor)).toEqual(['', 'register-a-route-1'])
    expect(info[0].breadcrumb).toBe('')
  })

  it('keeps admonition fences out of the prose', () => {
    const install = codeSnippets(snippets).find((s) => s.anchor === 'install')!
    expect(install.description).toBe('Add the package with the package manager your project uses:')
    expect(JSON.stringify(snippets)).not.toContain(':::')
  })

  it('does not repeat a code snippet\'s description in the info snippet of its section', () => {
    for (const info of infoSnippets(snippets)) {
      for (const code of codeSnippets(snippets)) {
        if (code.description) expect(info.content).not.toContain(code.description)
      }
    }
  })
})

describe('a .md page written as MDX (Docusaurus compiles .md as MDX)', () => {
  it('reads it as MDX: one snippet for the tabs, no import lines in any snippet; plain Markdown stays on markdown-it', () => {
    const snippets = parseDocument({ path: 'docs/installation.md', text: DOCUSAURUS })
    expect(codeSnippets(snippets)[0].codeList.map((c) => c.code)).toEqual(['npm install lectern', 'yarn add lectern', 'pnpm add lectern'])
    expect(JSON.stringify(snippets)).not.toMatch(/@theme|import Tabs|export const/)
    expect(looksLikeMdx(DOCUSAURUS)).toBe(true)
    expect(looksLikeMdx('# Plain\n\nA page that shows <b>bold</b> HTML and a `<Tabs>` mention.\n\n```js\nimport x from "y"\n```\n')).toBe(false)
  })
})

describe('parseMarkdown with mdx: tabs with prose', () => {
  it('labels each tab\'s prose with its tab and keeps it out of later descriptions', () => {
    const text = dedent(`
      ## Start the server

      <Tabs>
        <TabItem value="mac" label="macOS">
          Homebrew installs a launch agent for you.

          \`\`\`bash
          brew services start lectern
          \`\`\`
        </TabItem>
        <TabItem value="linux" label="Linux">
          Use the systemd unit shipped with the package.

          \`\`\`bash
          systemctl start lectern
          \`\`\`
        </TabItem>
      </Tabs>

      \`\`\`bash
      lectern status
      \`\`\`
    `)
    const snippets = parseMarkdown({ path: 'start.mdx', text }, { mdx: true })
    const code = codeSnippets(snippets)
    expect(code[0].codeList.map((c) => c.code)).toEqual(['brew services start lectern', 'systemctl start lectern'])
    expect(code[1]).toMatchObject({ description: '', codeList: [{ language: 'bash', code: 'lectern status' }] })
    expect(infoSnippets(snippets)[0].content).toBe(
      'macOS: Homebrew installs a launch agent for you.\n\nLinux: Use the systemd unit shipped with the package.',
    )
  })
})

describe('parseMarkdown with mdx: broken MDX', () => {
  const BROKEN = dedent(`
    import { Tabs, Tab } from 'nextra/components'

    # Client setup

    Pass {the options} to the client; a value <br> of zero disables retries entirely for this client.

    <Tabs items={['npm', 'pnpm']}>
      <Tab title="npm">
        \`\`\`bash
        npm i lectern-client
        \`\`\`
      </Tab>
      <Tab title="pnpm">
        \`\`\`bash
        pnpm add lectern-client
        \`\`\`
      </Tab>
    </Tabs>

    \`\`\`python
    def main():
        client = Client(retries=0)
    \`\`\`
  `)

  it('falls back to markdown without throwing, keeping prose, tab groups and indentation', () => {
    const snippets = parseMarkdown({ path: 'client.mdx', text: BROKEN }, { mdx: true })
    const code = codeSnippets(snippets)
    expect(code[0]).toMatchObject({
      title: 'Client setup',
      description: 'Pass {the options} to the client; a value of zero disables retries entirely for this client.',
      codeList: [
        { language: 'bash', code: 'npm i lectern-client' },
        { language: 'bash', code: 'pnpm add lectern-client' },
      ],
    })
    expect(code[1].codeList).toEqual([{ language: 'python', code: 'def main():\n    client = Client(retries=0)' }])
    expect(JSON.stringify(snippets)).not.toMatch(/nextra|<Tab/)
  })

  it('reads the same page as plain markdown without the mdx flag', () => {
    expect(() => parseMarkdown({ path: 'client.md', text: BROKEN }, { mdx: false })).not.toThrow()
  })
})
