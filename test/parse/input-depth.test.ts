/**
 * No parser recurses as deep as its input goes (issue 29, item 3): pages nested thousands of
 * levels deep, or with 140,000 unclosed fences, parse without overflowing the stack.
 */
import { describe, expect, it } from 'vitest'
import { parseDocument } from '../../src/parse/index.js'

const nested = (levels: number, line: (level: number) => string) => Array.from({ length: levels }, (_, i) => line(i)).join('\n')

describe('input depth', () => {
  it.each([
    ['140,000 unclosed fences', 'fences.md', '```js\n'.repeat(140_000)],
    ['3,000 nested admonitions', 'admonitions.md', nested(3000, (i) => '    '.repeat(i) + '!!! note')],
    ['3,000 nested JSX elements', 'jsx.mdx', '<A>'.repeat(3000) + 'x' + '</A>'.repeat(3000)],
    ['3,000 nested block quotes in MDX', 'quotes.mdx', '> '.repeat(3000) + 'x'],
    ['2,000 nested reStructuredText notes', 'notes.rst', nested(2000, (i) => ' '.repeat(i * 2) + '.. note::\n')],
    ['3,000 nested AsciiDoc example blocks', 'examples.adoc', nested(3000, (i) => '='.repeat(4 + i)) + '\nx\n' + nested(3000, (i) => '='.repeat(3003 - i))],
    ['140,000 unclosed AsciiDoc listing blocks', 'listings.adoc', nested(140_000, (i) => '-'.repeat(4 + (i % 50)))],
  ])('%s', (_name, path, text) => {
    expect(() => parseDocument({ path, text })).not.toThrow()
  })

  it('keeps the text of what is nested too deep to walk', () => {
    const words = 'The innermost words explain how the thing starts, stops and recovers after a crash. '.repeat(3)
    const snippets = parseDocument({ path: 'deep.mdx', text: `# Deep\n\n${'<A>\n\n'.repeat(100)}${words}\n\n${'</A>\n\n'.repeat(100)}` })
    expect(snippets).toEqual([expect.objectContaining({ kind: 'info', content: expect.stringContaining('The innermost words explain') })])
  })
})
