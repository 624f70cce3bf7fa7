/** The library-name edit distance: Levenshtein's edits plus adjacent transpositions, one each. */
import fc from 'fast-check'
import { distance as levenshtein } from 'fastest-levenshtein'
import { describe, expect, it } from 'vitest'
import { editDistance } from '../../src/text/edit-distance.js'

describe('editDistance', () => {
  it.each([
    ['flaks', 'flask', 1],
    ['fastfy', 'fastify', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['abcdef', 'badcfe', 3],
    // Optimal string alignment: a transposed pair is not edited again.
    ['ca', 'abc', 3],
    ['same', 'same', 0],
  ])('%s -> %s is %i', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected)
    expect(editDistance(b, a)).toBe(expected)
  })

  it('never exceeds Levenshtein, and counts a swap of two different adjacent letters as one edit where Levenshtein counts two', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        expect(editDistance(a, b)).toBeLessThanOrEqual(levenshtein(a, b))
        expect(editDistance(a, b)).toBe(editDistance(b, a))
      }),
    )
    fc.assert(
      fc.property(fc.string({ minLength: 2, maxLength: 20 }), fc.nat(), (word, at) => {
        const i = at % (word.length - 1)
        fc.pre(word[i] !== word[i + 1])
        const swapped = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2)
        expect(levenshtein(word, swapped)).toBe(2)
        expect(editDistance(word, swapped)).toBe(1)
      }),
    )
  })
})
