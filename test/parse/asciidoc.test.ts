import { describe, expect, it } from 'vitest'
import { parseAsciidoc } from '../../src/parse/asciidoc.js'
import { parseDocument } from '../../src/parse/index.js'
import { codeSnippets, infoSnippets, repo } from './helpers.js'


const PAGE = [
  '= Getting Started with Widgets',
  ':idprefix:',
  ':idseparator: -',
  ':version: 2.4',
  '',
  'Widgets {version} draws charts on any canvas, and this page takes you from an empty project to a first chart.',
  '',
  '[[install]]',
  '== Install the library',
  '',
  'Add the dependency to your build with _one_ line of *Gradle*, as the link:https://gradle.org[Gradle docs] explain:',
  '',
  '[source,groovy]',
  '.build.gradle',
  '----',
  "implementation 'com.acme:widgets:{version}' // <1>",
  '----',
  '<1> The version of this guide.',
  '',
  '== Draw a chart',
  '',
  'Create a chart and draw it; see <<install,the install step>> first:',
  '',
  '[source,java]',
  '----',
  'include::example$Chart.java[tag=draw]',
  '----',
  '',
  'NOTE: Charts are immutable once drawn, so make a new one to change the data shown on the canvas.',
  '',
  'include::partial$support.adoc[]',
  '',
  '== Draw a chart',
  '',
  '* first item of a list that explains the second section with the same title',
  '* second item of the list, long enough to make the section worth an info snippet',
  '',
  '[WARNING]',
  '====',
  'Never draw from two threads at once: the canvas is not safe for concurrent use by design.',
  '====',
].join('\n')

const CHART = ['package acme;', '', 'class Example {', '  // tag::draw[]', '  Chart chart = Chart.of(data);', '  chart.draw(canvas);', '  // end::draw[]', '}'].join('\n')
const SUPPORT = '=== Get help\n\nAsk the Widgets team in the #widgets channel when a chart does not draw the way this guide says.\n'

describe('AsciiDoc pages', () => {
  it('reads sections, source blocks with titles and callouts stripped, Antora includes by resource ID, admonitions and ids', () => {
    const files = repo({ 'docs/modules/ROOT/examples/Chart.java': CHART, 'docs/modules/ROOT/partials/support.adoc': SUPPORT })
    const snippets = parseAsciidoc({ path: 'docs/modules/ROOT/pages/start.adoc', text: PAGE }, { includes: files })
    expect(codeSnippets(snippets).map((s) => ({ title: s.title, breadcrumb: s.breadcrumb, anchor: s.anchor, language: s.codeList[0].language, code: s.codeList[0].code, includes: s.includes }))).toEqual([
      { title: 'build.gradle', breadcrumb: 'Getting Started with Widgets > Install the library', anchor: 'install', language: 'groovy', code: "implementation 'com.acme:widgets:{version}'", includes: undefined },
      { title: 'Draw a chart', breadcrumb: 'Getting Started with Widgets > Draw a chart', anchor: 'draw-a-chart', language: 'java', code: 'Chart chart = Chart.of(data);\nchart.draw(canvas);', includes: ['docs/modules/ROOT/examples/Chart.java'] },
    ])
    expect(codeSnippets(snippets)[0].description).toContain('Add the dependency to your build with one line of Gradle, as the Gradle docs explain')
    expect(codeSnippets(snippets)[1].description).toContain('see the install step first')
    const info = infoSnippets(snippets)
    expect(info.map((s) => [s.breadcrumb, s.anchor])).toEqual([
      ['Getting Started with Widgets', ''],
      ['Getting Started with Widgets > Draw a chart', 'draw-a-chart'],
      ['Getting Started with Widgets > Draw a chart > Get help', 'get-help'],
      ['Getting Started with Widgets > Draw a chart', 'draw-a-chart-2'],
    ])
    expect(info[0].content).toContain('Widgets 2.4 draws charts')
    expect(info[1].content).toContain('Note: Charts are immutable')
    expect(info[3].content).toContain('- first item')
    expect(info[3].content).toContain('Warning: Never draw from two threads')
    expect(files.outcomes).toEqual([
      { page: 'docs/modules/ROOT/pages/start.adoc', line: 26, reference: 'example$Chart.java', resolved: 'docs/modules/ROOT/examples/Chart.java' },
      { page: 'docs/modules/ROOT/pages/start.adoc', line: 31, reference: 'partial$support.adoc', resolved: 'docs/modules/ROOT/partials/support.adoc' },
    ])
  })

  it("takes Asciidoctor's default ids, lines= selections, and records an include that reads no file", () => {
    const files = repo({ 'src/main.py': 'a = 1\nb = 2\nc = 3\n' })
    const text = '= Guide\n\n== Getting Started!\n\nRun it:\n\n[source]\n----\ninclude::../src/main.py[lines=2..3]\n----\n\n== More\n\nText:\n\n----\ninclude::missing.py[]\n----\n'
    const snippets = parseDocument({ path: 'docs/guide.adoc', text }, { includes: files })
    expect(codeSnippets(snippets).map((s) => [s.anchor, s.codeList[0].language, s.codeList[0].code])).toEqual([['_getting_started', 'python', 'b = 2\nc = 3']])
    expect(files.outcomes.at(-1)).toEqual({ page: 'docs/guide.adoc', line: 17, reference: 'missing.py', problem: 'not found', tried: ['docs/missing.py', 'missing.py'] })
  })

  it('an Antora component at the repository root, an empty :idseparator:, and a file at the include depth limit that includes nothing', () => {
    const files = repo({ 'modules/ROOT/partials/help.adoc': 'Ask the team in the chat channel when something does not work the way this guide says it should.\n' })
    const text = '= Guide\n:idprefix:\n:idseparator:\n\n== Get Help Now\n\ninclude::partial$help.adoc[]\n'
    const snippets = parseAsciidoc({ path: 'modules/ROOT/pages/guide.adoc', text }, { includes: files })
    expect(infoSnippets(snippets).map((s) => [s.anchor, s.content])).toEqual([['gethelpnow', expect.stringContaining('Ask the team')]])
    expect(files.outcomes).toEqual([{ page: 'modules/ROOT/pages/guide.adoc', line: 7, reference: 'partial$help.adoc', resolved: 'modules/ROOT/partials/help.adoc' }])
  })
})
