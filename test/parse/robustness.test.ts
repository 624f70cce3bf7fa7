import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseDocument } from '../../src/parse/index.js'
import type { ParsedSnippet } from '../../src/parse/types.js'
import { countTokens } from '../../src/text/tokens.js'

/** Fragments of the syntax the readers care about, so random documents hit their edge cases. */
const FRAGMENTS = [
  '# Title', '## Sub {#id}', '```js', '```', '~~~', '    indented', '<Tabs>', '</Tabs>', '<TabItem label="npm">', '</TabItem>',
  'import X from "x"', 'export const a = 1', '{expr}', '<br>', '<!-- c -->', '---', 'title: T', '- item', '1. step', '> quote',
  '| a | b |', '|---|---|', '.. code-block:: python', '   :caption: C', '.. note::', '::', 'Example::', '>>> 1 + 1', '=====',
  'Heading', '~~~~~', '   code line', ':func:`x`', '``lit``', '', '', 'Some prose words here.', '\t', ':::tip', '[![b](x)](y)',
  '!!! note "T"', '??? tip', '    body', '=== "Tab"', '/// note | T', '///', '/// tab | A', ':::', '::::', '::: code-group', '```sh [npm]',
  '--8<-- "x.md"', '--8<--', 'x.md', '{* a.py ln[1:2] *}', '<<< @/a.js#r{1 ts}', '<!--@include: ./x.md{2,}-->', '.. literalinclude:: a.py',
  '   :lines: 2-', "import A from '!!raw-loader!./a.js'", '<CodeBlock>{A}</CodeBlock>', '## Title {/*custom*/}', '## T { #id }',
]

const documents = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string()), { maxLength: 40 }).map((lines) => lines.join('\n'))

function checkShape(snippets: ParsedSnippet[]): void {
  for (const snippet of snippets) {
    if (snippet.kind === 'code') {
      expect(snippet.codeList.length).toBeGreaterThan(0)
      for (const alternative of snippet.codeList) {
        expect(alternative.code.trim()).not.toBe('')
        expect(alternative.code).toBe(alternative.code.trimEnd())
        expect(alternative.language).toMatch(/\S/)
      }
    } else {
      expect(snippet.content.trim()).not.toBe('')
      expect(countTokens(snippet.content) <= 700 || !/\s/.test(snippet.content)).toBe(true)
    }
  }
}

describe('parsers on arbitrary input', () => {
  for (const extension of ['.md', '.mdx', '.rst', '.txt', '.ipynb']) {
    it(`never throw and emit well-formed snippets for ${extension}`, () => {
      fc.assert(
        fc.property(documents, (text) => {
          checkShape(parseDocument({ path: `doc${extension}`, text }))
        }),
        { numRuns: 200 },
      )
    })
  }
})

describe('include directives on arbitrary input', () => {
  it('terminate, also when a file includes itself, and emit well-formed snippets', () => {
    fc.assert(
      fc.property(documents, documents, (text, included) => {
        const files: Record<string, string> = { 'x.md': `${included}\n--8<-- "x.md"\n<!--@include: ./x.md-->`, 'a.py': included, 'a.js': included }
        const includes = { readFile: (path: string) => files[path], record: () => {} }
        for (const extension of ['.md', '.mdx', '.rst']) checkShape(parseDocument({ path: `doc${extension}`, text }, { includes }))
      }),
      { numRuns: 200 },
    )
  })
})

describe('parseNotebook on arbitrary JSON', () => {
  const cell = fc.record({
    cell_type: fc.oneof(fc.constantFrom('markdown', 'code', 'raw', 'heading'), fc.jsonValue()),
    source: fc.oneof(fc.string(), fc.array(fc.oneof(fc.string(), fc.jsonValue())), fc.jsonValue()),
    level: fc.jsonValue(),
  }, { requiredKeys: [] })
  const notebook = fc.record({
    cells: fc.oneof(fc.array(fc.oneof(cell, fc.jsonValue())), fc.jsonValue()),
    worksheets: fc.oneof(fc.array(fc.record({ cells: fc.array(cell) })), fc.jsonValue()),
    metadata: fc.oneof(fc.record({ kernelspec: fc.jsonValue(), language_info: fc.jsonValue() }), fc.jsonValue()),
  }, { requiredKeys: [] })

  it('never throws and emits well-formed snippets', () => {
    fc.assert(
      fc.property(fc.oneof(notebook, fc.jsonValue()), (value) => {
        checkShape(parseDocument({ path: 'nb.ipynb', text: JSON.stringify(value) ?? '' }))
      }),
      { numRuns: 500 },
    )
  })
})
