import fs from 'node:fs'
import path from 'node:path'
import { countTokens as countCl100k } from 'gpt-tokenizer'
import { describe, expect, it } from 'vitest'
import { countTokens, splitByTokens } from '../../src/text/tokens.js'

describe('countTokens', () => {
  it('counts cl100k tokens', () => {
    expect(countTokens('')).toBe(0)
    expect(countTokens('hello world')).toBe(2)
  })

  it('counts special-token strings as plain text instead of throwing', () => {
    expect(countTokens('the <|endoftext|> marker')).toBeGreaterThan(3)
  })

  it('gives the count of the whole text, counting each pre-token once and remembering it', () => {
    const texts = [
      "It's what they'VE said: don't\r\n\r\n  indent\tme   \n\n\n",
      'const x = 1234567 + 89; // 12 digits: 123456789012',
      '```ts\nexport function f(a: number): number {\n    return a ** 2\n}\n```',
      'Grüße, 東京の日本語テキスト, emoji 🧪🚀 and combining é, Ελληνικά, русский текст',
      '<|endoftext|><|im_start|>system<|im_end|> <|fim_prefix|>',
      '   leading and trailing   ',
      '\n',
      'a'.repeat(500) + ' ' + '-'.repeat(300) + '!!!???',
      '\ud83d lone surrogate \ude00 halves',
    ]
    for (const text of texts) {
      // Twice: the second count comes from what the first remembered.
      expect(countTokens(text)).toBe(countCl100k(text, { disallowedSpecial: new Set() }))
      expect(countTokens(text)).toBe(countCl100k(text, { disallowedSpecial: new Set() }))
    }
    expect(countTokens(texts.join(''))).toBe(countCl100k(texts.join(''), { disallowedSpecial: new Set() }))
  })

  it('counts a pre-token of 300,000 characters in parts, within a token of each part, in linear time', () => {
    for (const text of [' '.repeat(300_000), 'ab'.repeat(150_000), '日本'.repeat(150_000), Array.from({ length: 300_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('')]) {
      const started = performance.now()
      const parts = Math.ceil(text.length / 1024)
      const exact = [...Array(parts).keys()].reduce((sum, i) => sum + countCl100k(text.slice(i * 1024, (i + 1) * 1024), { disallowedSpecial: new Set() }), 0)
      expect(Math.abs(countTokens(text) - exact)).toBeLessThanOrEqual(parts)
      expect(performance.now() - started).toBeLessThan(20_000)
    }
  })

  it('merges ASCII words as gpt-tokenizer does: every file of the README and the parsers, thousands of words seen first', () => {
    const dirs = ['src/parse', 'src/parse/source-code', 'src/search']
    const files = ['README.md', ...dirs.flatMap((dir) => fs.readdirSync(dir).filter((name) => name.endsWith('.ts')).map((name) => path.join(dir, name)))]
    expect(files.length).toBeGreaterThan(30)
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8')
      expect({ file, count: countTokens(text) }).toEqual({ file, count: countCl100k(text, { disallowedSpecial: new Set() }) })
    }
  })
})

describe('splitByTokens', () => {
  const sentence = 'The router matches each request against the registered routes in order.'

  it('keeps short text whole', () => {
    expect(splitByTokens('  One paragraph.  ', 50)).toEqual(['One paragraph.'])
    expect(splitByTokens('   ', 50)).toEqual([])
  })

  it('cuts at paragraph boundaries first', () => {
    const paragraphs = Array.from({ length: 6 }, (_, i) => `Paragraph ${i}. ${sentence}`)
    const parts = splitByTokens(paragraphs.join('\n\n'), 40)
    expect(parts.length).toBeGreaterThan(1)
    for (const part of parts) {
      expect(countTokens(part)).toBeLessThanOrEqual(40)
      expect(part.startsWith('Paragraph ')).toBe(true)
    }
    expect(parts.join('\n\n')).toBe(paragraphs.join('\n\n'))
  })

  it('cuts an over-long paragraph at sentences, never inside a word', () => {
    const paragraph = Array.from({ length: 20 }, () => sentence).join(' ')
    const parts = splitByTokens(paragraph, 30)
    expect(parts.length).toBeGreaterThan(1)
    for (const part of parts) {
      expect(countTokens(part)).toBeLessThanOrEqual(30)
      expect(part.endsWith('order.')).toBe(true)
    }
    expect(parts.join(' ').split(/\s+/)).toEqual(paragraph.split(/\s+/))
  })

  it('falls back to words for a sentence over the budget, and leaves a giant word whole', () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')
    const parts = splitByTokens(words, 25)
    for (const part of parts) expect(countTokens(part)).toBeLessThanOrEqual(25)
    expect(parts.join(' ')).toBe(words)
    const giant = 'x'.repeat(400)
    expect(splitByTokens(giant, 5)).toEqual([giant])
  })
})
