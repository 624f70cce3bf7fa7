import { describe, expect, it } from 'vitest'
import { parseMarkdown } from '../../src/parse/markdown.js'
import { codeSnippets, infoSnippets, repo } from './helpers.js'


const LONG = 'which explains enough about the behaviour that the section makes an info snippet of its own'

function parse(path: string, text: string, files: Record<string, string> = {}, templates: 'hugo' | 'jekyll' = path.startsWith('content/') ? 'hugo' : 'jekyll', siteRoots: string[] = []) {
  const reader = repo(files)
  const notRendered: Array<{ line: number; directive: string }> = []
  const snippets = parseMarkdown({ path, text }, { mdx: false }, { includes: reader, notRendered: (item) => notRendered.push(item), templates, siteRoots })
  return { snippets, outcomes: reader.outcomes, notRendered, all: JSON.stringify(snippets) }
}

describe('Hugo shortcodes', () => {
  it('tabs are one snippet of alternatives; code-toggle one code snippet; notes read as asides; nothing leaks into titles or anchors', () => {
    const page = [
      '+++',
      'title = "Install Hugo"',
      '+++',
      '',
      '## Install {{< param "version" >}}',
      '',
      'Install Hugo with your package manager:',
      '',
      '{{< tabs >}}',
      '{{% tab name="macOS" %}}',
      '```sh',
      'brew install hugo',
      '```',
      '{{% /tab %}}',
      '{{% tab name="Linux" %}}',
      '```sh',
      'sudo snap install hugo',
      '```',
      '{{% /tab %}}',
      '{{< /tabs >}}',
      '',
      '## Configure',
      '',
      'Set the base URL of the site:',
      '',
      '{{< code-toggle file="hugo" >}}',
      'baseURL = "https://example.org/"',
      'title = "My site"',
      '{{< /code-toggle >}}',
      '',
      '{{< note >}}',
      `The base URL must end with a slash, ${LONG}.`,
      '{{< /note >}}',
      '',
      '{{< figure src="/images/a.png" >}}',
    ].join('\n')
    const { snippets, all, notRendered } = parse('content/en/installation/_index.md', page)
    const code = codeSnippets(snippets)
    expect(code.map((s) => [s.title, s.breadcrumb, s.anchor, s.codeList.map((c) => c.code)])).toEqual([
      ['Install', 'Install', 'install', ['brew install hugo', 'sudo snap install hugo']],
      // The configuration in the three formats the site shows it in, as written first.
      ['Configure', 'Configure', 'configure', ['baseURL = "https://example.org/"\ntitle = "My site"', 'baseURL: https://example.org/\ntitle: My site', '{\n  "baseURL": "https://example.org/",\n  "title": "My site"\n}']],
    ])
    expect(code[1].codeList.map((c) => c.language)).toEqual(['toml', 'yaml', 'json'])
    expect(infoSnippets(snippets).map((s) => s.content).join('\n')).toContain('Note:')
    expect(all).not.toMatch(/\{\{|\}\}/)
    expect(notRendered).toEqual([{ line: 35, directive: '{{< figure src="/images/a.png" >}}' }])
  })

  it('code-toggle: front matter written in YAML, and JSON, each first as written; content that is no configuration stays one block as written', () => {
    const toggle = (params: string, body: string[]) => ['## Example', '', `{{< code-toggle ${params} >}}`, ...body, '{{< /code-toggle >}}', ''].join('\n')
    const yaml = codeSnippets(parse('content/en/a.md', toggle('file=content/example.md fm=true', ['title: Example', 'tags:', '  - appetizer', '  - main course'])).snippets)
    expect(yaml.map((s) => [s.title, s.codeList.map((c) => c.language)])).toEqual([['Example', ['yaml', 'toml', 'json']]])
    expect(yaml[0].codeList[1].code).toBe('title = "Example"\ntags = [ "appetizer", "main course" ]')
    const json = codeSnippets(parse('content/en/b.md', toggle('', ['{"params": {"color": "red"}}'])).snippets)
    expect(json[0].codeList.map((c) => [c.language, c.code])).toEqual([
      ['json', '{"params": {"color": "red"}}'],
      ['toml', '[params]\ncolor = "red"'],
      ['yaml', 'params:\n  color: red'],
    ])
    // A scalar, text no format reads, or a hostile document (an alias bomb, nesting too deep to
    // write back) is not a configuration to convert: shown as written, in one block, at once.
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`)]
    const started = Date.now()
    for (const body of [['just words, not a table'], ['key = [unclosed'], bomb, [`{"a": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`]]) {
      const [one] = codeSnippets(parse('content/en/c.md', toggle('file=hugo', body)).snippets)
      expect(one.codeList, body[0].slice(0, 40)).toEqual([{ language: 'text', code: body.join('\n') }])
    }
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('code-toggle closed as `{{</ code-toggle >}}` ends there; a self-closing one (the site\'s own config data) shows nothing and keeps the prose after it', () => {
    const page = [
      '## Build',
      '',
      '{{< code-toggle config=build />}}',
      '',
      `\`enable\`: whether to write the stats file, ${LONG}.`,
      '',
      '{{< code-toggle file=hugo >}}',
      '[build]',
      'noJSConfigInAssets = true',
      '{{</ code-toggle >}}',
      '',
      `After the example, more prose ${LONG}.`,
    ].join('\n')
    const { snippets, notRendered } = parse('content/en/configuration/build.md', page)
    expect(codeSnippets(snippets).map((s) => s.codeList.map((c) => c.language))).toEqual([['toml', 'yaml', 'json']])
    // The prose before the example introduces it (its description); the prose after is the section's.
    expect(codeSnippets(snippets)[0].description).toContain('whether to write the stats file')
    expect(infoSnippets(snippets).map((s) => s.content).join('\n')).toContain('After the example, more prose')
    expect(notRendered).toEqual([{ line: 3, directive: '{{< code-toggle config=build />}}' }])
  })

  it('includes: {{% include %}} from the content folder, readfile, and the Kubernetes codenew from examples/', () => {
    const files = {
      'content/en/_common/install-note.md': 'Hugo needs Git and Go for modules, and Dart Sass to transpile Sass to CSS in this setup.\n',
      'content/en/examples/pods/simple-pod.yaml': 'apiVersion: v1\nkind: Pod\n',
    }
    const page = `# Pods\n\n## Prerequisites\n\n{{% include "/_common/install-note.md" %}}\n\n## Create a pod\n\nApply this manifest:\n\n{{% codenew file="pods/simple-pod.yaml" %}}\n`
    const { snippets, outcomes } = parse('content/en/docs/concepts/pods.md', page, files)
    expect(infoSnippets(snippets).map((s) => s.content).join('\n')).toContain('Hugo needs Git and Go')
    expect(codeSnippets(snippets).map((s) => [s.title, s.codeList[0].language, s.includes])).toEqual([['Create a pod', 'yaml', ['content/en/examples/pods/simple-pod.yaml']]])
    expect(outcomes.map((o) => [o.line, o.resolved, o.problem])).toEqual([
      [5, 'content/en/_common/install-note.md', undefined],
      [11, 'content/en/examples/pods/simple-pod.yaml', undefined],
    ])
  })
})

describe('Jekyll Liquid', () => {
  it('highlight blocks are code; includes read from _includes/; a loop over a data file shows the data; other loops are named as not rendered; no Liquid in headings', () => {
    const files = {
      '_includes/install.md': `Run the installer once per machine, ${LONG}.\n`,
      '_data/options.yml': '- name: baseurl\n  default: "\'\'"\n- name: incremental\n  default: false\n  flag: --incremental\n',
    }
    const page = [
      '---',
      'title: Quickstart',
      '---',
      '',
      '## Install {{ site.version }}',
      '',
      '{% include install.md %}',
      '',
      '## Build',
      '',
      'Build the site:',
      '',
      '{% highlight shell %}',
      'bundle exec jekyll serve',
      '{% endhighlight %}',
      '',
      '## Options',
      '',
      '| Option | Default |',
      '|---|---|',
      '{% for option in site.data.options %}',
      '| {{ option.name }} | {{ option.default }} |',
      '{% endfor %}',
      '',
      '{% include note.html content="Options apply to every page of the site." %}',
      '{% include footer.html %}',
    ].join('\n')
    const { snippets, all, notRendered, outcomes } = parse('docs/quickstart.md', page, files)
    expect(codeSnippets(snippets).map((s) => [s.title, s.codeList[0].language, s.codeList[0].code])).toEqual([['Build', 'bash', 'bundle exec jekyll serve']])
    const info = infoSnippets(snippets)
    expect(info.map((s) => [s.breadcrumb, s.anchor])).toContainEqual(['Install', 'install'])
    expect(info.map((s) => s.content).join('\n')).toContain('Run the installer once per machine')
    expect(all).toContain('Options apply to every page of the site.')
    expect(all).not.toMatch(/\{%|%\}|\{\{|\}\}/)
    // The loop's rows come from _data/options.yml, a column per key of its records.
    const options = info.find((s) => s.anchor === 'options')!.content
    expect(options).toContain('| name | default | flag |')
    expect(options).toContain('| incremental | false | --incremental |')
    expect(notRendered).toEqual([{ line: 26, directive: '{% include footer.html %}' }])
    expect(outcomes).toEqual([
      { page: 'docs/quickstart.md', line: 7, reference: 'install.md', resolved: '_includes/install.md' },
      { page: 'docs/quickstart.md', line: 21, reference: 'site.data.options', resolved: '_data/options.yml' },
    ])
  })

  it('data loops: a key inside a file, a map, a list; a missing or unreadable file is an unresolved include with the paths tried', () => {
    const files = {
      'docs/_config.yml': 'title: x\n',
      'docs/_data/samplelist.yml': 'docs:\n  - title: Getting started\n    url: /start/\n  - title: Configuration | options\n    url: /config/\n',
      'docs/_data/ruby.json': '{"min_version": "2.7.0", "current_version": "3.3"}',
      'docs/_data/platforms.yml': '- Linux\n- macOS\n',
      'docs/_data/broken.yml': 'a: &a [1]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n',
    }
    const loop = (name: string, body = '- {{ item }}') => [`## ${name}`, '', `${LONG}.`, '', `{% for item in site.data.${name} | sort: "title" %}`, `  ${body}`, '  {% for inner in item.parts %}{{ inner }}{% endfor %}', '{% endfor %}', ''].join('\n')
    const page = ['# Data', '', ...['samplelist.docs', 'ruby', 'platforms', 'missing', 'broken'].map((name) => loop(name)), '## Inline', '', `${LONG}.`, '', '{% for s in site.data.platforms %}| {{ s }} |', '{% endfor %}', '', '## Sorted', '', `${LONG}.`, '', '{% assign sorted = site.data.platforms | sort %}', '{% for s in sorted %}', '* `{{ s.name }}`: {{ s.description }}', '{% endfor %}', ''].join('\n')
    const { snippets, outcomes, all, notRendered } = parse('docs/_docs/data.md', page, files, 'jekyll', ['docs'])
    // A loop over anything else is rendered by the build only: named, and its body (a template, code spans included) is not text.
    expect(notRendered).toEqual([{ line: 60, directive: '{% for s in sorted %}' }])
    const content = (anchor: string) => infoSnippets(snippets).find((s) => s.anchor === anchor)!.content
    expect(content('samplelistdocs')).toContain('| Configuration \\| options | /config/ |')
    expect(content('ruby')).toContain('| min_version | 2.7.0 |')
    expect(content('platforms')).toContain('macOS')
    // A loop whose body starts on its own line is the loop all the same.
    expect(content('inline')).toContain('- Linux')
    expect(all).not.toMatch(/\{%|%\}|\{\{|\}\}|lectern-data/)
    expect(outcomes.map((o) => [o.line, o.resolved, o.problem])).toEqual([
      [7, 'docs/_data/samplelist.yml', undefined],
      [16, 'docs/_data/ruby.json', undefined],
      [25, 'docs/_data/platforms.yml', undefined],
      [34, undefined, 'not found'],
      [43, 'docs/_data/broken.yml', expect.stringMatching(/^cannot be read as a table: /)],
      [52, 'docs/_data/platforms.yml', undefined],
    ])
    // Looked for under the site's root, the page's folders and the repository root, by the longest file name first.
    expect(outcomes[3].tried?.slice(0, 3)).toEqual(['docs/_data/missing.yml', 'docs/_data/missing.yaml', 'docs/_data/missing.json'])
  })
})

describe('template tags elsewhere', () => {
  it('are text on a site that is neither Hugo nor Jekyll, and code spans keep theirs on one that is', () => {
    const vue = '# Templates\n\n## Text interpolation\n\nThe most basic form is text interpolation with the mustache syntax, `{{ message }}`, which the component replaces with its value.\n'
    const plain = parseMarkdown({ path: 'src/guide/essentials/template-syntax.md', text: vue }, { mdx: false }, {})
    expect(JSON.stringify(plain)).toContain('`{{ message }}`')
    const jekyll = parse('docs/x.md', vue)
    expect(JSON.stringify(jekyll.snippets)).toContain('`{{ message }}`')
    expect(parse('docs/y.md', '# A\n\n## B\n\nVisit {{ site.url }} for the rest of the guide, which explains every option in its own section.\n').all).not.toContain('{{')
  })

  it('stay linear on a hostile line', () => {
    const started = Date.now()
    parse('content/en/x.md', `# A\n\n{{< code ${' '.repeat(50_000)}\n{{< ${'a'.repeat(50_000)}\n{{</ ${' '.repeat(50_000)}x\n{% include ${' '.repeat(50_000)}\n${'`{{'.repeat(50_000)}\n`)
    expect(Date.now() - started).toBeLessThan(2000)
  })
})
