import { describe, expect, it } from 'vitest'
import { parseRst } from '../../src/parse/rst.js'
import { codeSnippets, dedent, infoSnippets } from './helpers.js'

const SPHINX = dedent(`
  .. _quickstart:

  ==========
  Quickstart
  ==========

  Lectern serves documentation snippets to assistants. This guide introduces the
  :func:\`~lectern.client.connect\` entry point, the \`\`--port\`\` option and the
  \`configuration reference <https://example.com/config>\`_ for all settings.

  .. contents::
     :local:

  Installation
  ============

  Install the package from PyPI_::

      $ pip install lectern

  .. _PyPI: https://pypi.org/project/lectern

  Usage
  =====

  Connecting
  ----------

  .. highlight:: python

  Create a client and query it:

  .. code-block:: python
     :caption: Query a library
     :linenos:

     from lectern import connect

     client = connect("http://localhost:3000")
     for snippet in client.query("routing"):
         print(snippet.title)

  .. note::

     The client retries failed requests three times with exponential backoff before
     it raises a :class:\`ConnectionError\`.

  The query result behaves like a list:

  >>> len(client.query("routing"))
  10

  A literal block now uses the highlight language::

      client.close()

  Options
  ~~~~~~~

  * \`\`timeout\`\`: seconds to wait for a response before the client gives up on the
    request and raises.
  * \`\`retries\`\`: how many times to retry a failed request.

  :param url: Address of the server.
  :returns: A connected client.

  Usage
  =====

  .. code:: bash

     lectern serve

  .. code-block:: javascript

     connect('http://localhost:3000')
`)

describe('parseRst: a Sphinx page', () => {
  const snippets = parseRst({ path: 'docs/quickstart.rst', text: SPHINX })
  const code = codeSnippets(snippets)
  const info = infoSnippets(snippets)

  it('assigns heading levels by first appearance of each adornment style', () => {
    expect(snippets.every((s) => s.pageTitle === 'Quickstart')).toBe(true)
    expect(code.find((s) => s.title === 'Query a library')?.breadcrumb).toBe('Quickstart > Usage > Connecting')
    expect(info.find((s) => s.anchor === 'options')?.breadcrumb).toBe('Quickstart > Usage > Connecting > Options')
  })

  it('reads a literal block after "::", keeping "Example:" in the description, its language guessed from a shell prompt', () => {
    expect(code[0]).toMatchObject({
      title: 'Installation',
      description: 'Install the package from PyPI:',
      breadcrumb: 'Quickstart > Installation',
      anchor: 'installation',
      codeList: [{ language: 'bash', code: '$ pip install lectern' }],
    })
  })

  it('reads code-block directives with options, taking the caption as title', () => {
    expect(code[1]).toMatchObject({
      title: 'Query a library',
      description: 'Create a client and query it:',
      anchor: 'connecting',
      codeList: [
        {
          language: 'python',
          code: 'from lectern import connect\n\nclient = connect("http://localhost:3000")\nfor snippet in client.query("routing"):\n    print(snippet.title)',
        },
      ],
    })
  })

  it('reads doctest blocks as python', () => {
    expect(code[2]).toMatchObject({
      title: 'Connecting',
      description: 'The query result behaves like a list:',
      codeList: [{ language: 'python', code: '>>> len(client.query("routing"))\n10' }],
    })
  })

  it('uses the .. highlight:: language for later literal blocks', () => {
    expect(code[3]).toMatchObject({
      description: 'A literal block now uses the highlight language:',
      codeList: [{ language: 'python', code: 'client.close()' }],
    })
  })

  it('keeps the text of inline markup and turns notes into prose', () => {
    const intro = info.find((s) => s.anchor === 'quickstart')!
    expect(intro.content).toBe(
      'Lectern serves documentation snippets to assistants. This guide introduces the `connect` entry point, the `--port` option and the configuration reference for all settings.',
    )
    const connecting = info.find((s) => s.anchor === 'connecting')!
    expect(connecting.content).toContain(
      'Note: The client retries failed requests three times with exponential backoff before it raises a `ConnectionError`.',
    )
  })

  it('renders bullet and field lists one item per line', () => {
    const options = info.find((s) => s.anchor === 'options')!
    expect(options.content).toBe(
      [
        '- `timeout`: seconds to wait for a response before the client gives up on the request and raises.',
        '- `retries`: how many times to retry a failed request.',
        '',
        '- param url: Address of the server.',
        '- returns: A connected client.',
      ].join('\n'),
    )
  })

  it('gives the duplicate section the id docutils invents and groups adjacent blocks in different languages', () => {
    const last = code.find((s) => s.anchor === 'id1')!
    expect(last.codeList).toEqual([
      { language: 'bash', code: 'lectern serve' },
      { language: 'javascript', code: "connect('http://localhost:3000')" },
    ])
  })

  it('leaves comments, targets and unknown directives out', () => {
    expect(JSON.stringify(snippets)).not.toMatch(/_quickstart|contents|:local:|pypi\.org|linenos/)
  })
})

describe('parseRst: edge cases', () => {
  it('treats a lone "::" paragraph as a marker only', () => {
    const text = 'Title\n=====\n\n::\n\n    raw text\n'
    const [snippet] = codeSnippets(parseRst({ path: 'a.rst', text }))
    expect(snippet).toMatchObject({ description: '', codeList: [{ language: 'text', code: 'raw text' }] })
  })

  it('groups sphinx-tabs code tabs into one snippet', () => {
    const text = dedent(`
      Install
      -------

      .. tabs::

         .. code-tab:: bash pip

            pip install lectern

         .. code-tab:: bash conda

            conda install lectern
    `)
    const [snippet] = codeSnippets(parseRst({ path: 'a.rst', text }))
    expect(snippet.codeList).toEqual([
      { language: 'bash', code: 'pip install lectern' },
      { language: 'bash', code: 'conda install lectern' },
    ])
  })

  it('names autodoc directives as rendered only by Sphinx, with their line, and reads the text written under them', () => {
    const notRendered: Array<{ line: number; directive: string }> = []
    const text = 'API\n===\n\n.. automodule:: widgets.charts\n   :members:\n\n.. autofunction:: widgets.draw\n\n   Draws on the default canvas unless another one is given, and returns the drawn chart.\n\n.. autosummary::\n\n   widgets.draw\n'
    const snippets = parseRst({ path: 'docs/api.rst', text }, { notRendered: (item) => notRendered.push(item) })
    expect(notRendered).toEqual([
      { line: 4, directive: '.. automodule:: widgets.charts' },
      { line: 7, directive: '.. autofunction:: widgets.draw' },
      { line: 11, directive: '.. autosummary::' },
    ])
    expect(JSON.stringify(snippets)).toContain('Draws on the default canvas')
    expect(JSON.stringify(snippets)).not.toContain('widgets.draw\\n')
  })
})
