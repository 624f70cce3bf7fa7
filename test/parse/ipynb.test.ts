import { describe, expect, it } from 'vitest'
import { parseNotebook } from '../../src/parse/ipynb.js'
import { codeSnippets, infoSnippets } from './helpers.js'

const NOTEBOOK = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {
    kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
    language_info: { name: 'python', version: '3.12.0' },
  },
  cells: [
    {
      cell_type: 'markdown',
      metadata: {},
      source: [
        '# Querying Lectern from Python\n',
        '\n',
        'This notebook connects to a local Lectern server and asks it for routing snippets of a library.\n',
        '\n',
        '## Connect\n',
        '\n',
        'First create a client for the server:',
      ],
    },
    {
      cell_type: 'code',
      execution_count: 1,
      metadata: {},
      outputs: [{ output_type: 'stream', name: 'stdout', text: ['connected\n'] }],
      source: ['from lectern import connect\n', '\n', 'client = connect("http://localhost:3000")\n', 'print("connected")'],
    },
    {
      cell_type: 'code',
      execution_count: null,
      metadata: {},
      outputs: [],
      source: ['for snippet in client.query("routing"):\n', '    print(snippet.title)'],
    },
    {
      cell_type: 'markdown',
      metadata: {},
      source: 'Shell commands work too:',
    },
    {
      cell_type: 'code',
      execution_count: 3,
      metadata: {},
      outputs: [],
      source: '%%bash\nlectern list',
    },
    { cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: [] },
  ],
}

describe('parseNotebook', () => {
  const snippets = parseNotebook({ path: 'examples/query.ipynb', text: JSON.stringify(NOTEBOOK) })
  const code = codeSnippets(snippets)

  it('makes a code snippet per non-empty code cell, described by the markdown before it', () => {
    expect(code).toHaveLength(3)
    expect(code[0]).toMatchObject({
      title: 'Connect',
      description: 'First create a client for the server:',
      breadcrumb: 'Querying Lectern from Python > Connect',
      pageTitle: 'Querying Lectern from Python',
      anchor: 'connect',
      codeList: [{ language: 'python', code: 'from lectern import connect\n\nclient = connect("http://localhost:3000")\nprint("connected")' }],
    })
  })

  it('carries headings across cells and keeps code indentation', () => {
    expect(code[1]).toMatchObject({
      anchor: 'connect',
      codeList: [{ language: 'python', code: 'for snippet in client.query("routing"):\n    print(snippet.title)' }],
    })
  })

  it('takes a cell magic as the language of its cell', () => {
    expect(code[2]).toMatchObject({
      description: 'Shell commands work too:',
      codeList: [{ language: 'bash', code: '%%bash\nlectern list' }],
    })
  })

  it('turns markdown prose into info snippets and ignores outputs', () => {
    expect(infoSnippets(snippets)).toEqual([
      {
        kind: 'info',
        breadcrumb: 'Querying Lectern from Python',
        pageTitle: 'Querying Lectern from Python',
        anchor: 'querying-lectern-from-python',
        content: 'This notebook connects to a local Lectern server and asks it for routing snippets of a library.',
      },
    ])
    expect(JSON.stringify(snippets)).not.toContain('connected\\n')
  })

  it('uses the kernel language when it is not python', () => {
    const notebook = {
      metadata: { kernelspec: { language: 'R' } },
      cells: [{ cell_type: 'code', source: 'summary(cars)' }],
    }
    const [snippet] = codeSnippets(parseNotebook({ path: 'cars.ipynb', text: JSON.stringify(notebook) }))
    expect(snippet).toMatchObject({ pageTitle: 'cars', codeList: [{ language: 'r', code: 'summary(cars)' }] })
  })

  it('returns [] for invalid JSON or JSON that is no notebook', () => {
    expect(parseNotebook({ path: 'broken.ipynb', text: '{"cells": [' })).toEqual([])
    expect(parseNotebook({ path: 'list.ipynb', text: '[1, 2]' })).toEqual([])
    expect(parseNotebook({ path: 'odd.ipynb', text: '{"cells": "nope"}' })).toEqual([])
  })
})
