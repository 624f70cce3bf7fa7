import { describe, expect, it } from 'vitest'
import { table } from '../../cli/output.js'

const rows = [
  { page: 'docs/en/docs/tutorial/cors.md', line: '13', tried: 'docs/en/docs/tutorial/docs_src/cors/tutorial002.py, docs/en/docs_src/cors/tutorial002.py, docs_src/cors/tutorial002.py' },
  { page: 'docs/a.md', line: '2', tried: 'short' },
]
const columns = [
  { header: 'PAGE', value: (r: (typeof rows)[number]) => r.page },
  { header: 'LINE', value: (r: (typeof rows)[number]) => r.line, right: true },
  { header: 'TRIED', value: (r: (typeof rows)[number]) => r.tried },
]

describe('tables for people', () => {
  it('wraps the last column under itself on a narrow terminal, never breaking a word', () => {
    const lines = table(rows, columns, 80).split('\n')
    const indent = 'docs/en/docs/tutorial/cors.md  LINE  '.length
    expect(lines.slice(1, 4)).toEqual([
      'docs/en/docs/tutorial/cors.md    13  docs/en/docs/tutorial/docs_src/cors/tutorial002.py,',
      `${' '.repeat(indent)}docs/en/docs_src/cors/tutorial002.py,`,
      `${' '.repeat(indent)}docs_src/cors/tutorial002.py`,
    ])
    expect(lines[4]).toBe('docs/a.md                         2  short')
  })

  it('does not wrap for a pipe, or when too little width is left for the last column', () => {
    expect(table(rows, columns, undefined).split('\n')).toHaveLength(3)
    expect(table(rows, columns, 50).split('\n')).toHaveLength(3)
  })
})
