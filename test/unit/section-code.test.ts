import { describe, expect, it } from 'vitest'
import { SetSections, sectionNumbers } from '../../src/index/set-sections.js'
import type { RankedDoc } from '../../src/search/fusion.js'
import { CODE_PER_SECTION, EXPLAINING, SECTION_CODE_WEIGHT, withSectionCode } from '../../src/search/section-code.js'

/** A set of snippets given as [kind, source] in document order. */
function setOf(snippets: Array<['code' | 'info', string]>) {
  const kinds = snippets.map(([kind]) => kind)
  const sections = new SetSections(sectionNumbers(snippets.map(([, source]) => ({ source }))), (doc) => kinds[doc] === 'code')
  return { sections, snippets: { kind: (doc: number) => kinds[doc] } }
}

const docs = (ranked: RankedDoc[]) => ranked.map((hit) => hit.doc)

describe('sections of a loaded set', () => {
  it('numbers sections in order of first appearance, one number per source link', () => {
    expect([...sectionNumbers([{ source: 'a#x' }, { source: 'a#y' }, { source: 'a#x' }, { source: 'b' }, { source: 'a#y' }])]).toEqual([0, 1, 0, 2, 1])
    expect([...sectionNumbers([])]).toEqual([])
  })

  it('groups each section\'s code snippets in page order, whatever snippet of it is asked about', () => {
    const set = setOf([['info', 'a#x'], ['code', 'a#x'], ['code', 'a#y'], ['info', 'a#y'], ['code', 'a#x'], ['info', 'b']])
    expect([...set.sections.codeOfSection(0)]).toEqual([1, 4])
    expect([...set.sections.codeOfSection(4)]).toEqual([1, 4])
    expect([...set.sections.codeOfSection(3)]).toEqual([2])
    expect([...set.sections.codeOfSection(5)]).toEqual([])
    expect(set.sections.ownBytes).toBeGreaterThan(0)
  })

  it('refuses section numbers that do not follow one another, as no engine file we wrote holds', () => {
    expect(() => new SetSections(Uint32Array.from([0, 2]), () => true)).toThrow('section 2 follows section 0')
    expect(() => new SetSections(Uint32Array.from([1]), () => true)).toThrow('section 1 follows section -1')
  })
})

describe('code next to its explanation', () => {
  it('scores a ranked explanation\'s code at its share of the explanation\'s score, right behind it', () => {
    // doc 0 explains section a#x, whose code (docs 1 and 2) matched nothing; doc 3 is other code.
    const set = setOf([['info', 'a#x'], ['code', 'a#x'], ['code', 'a#x'], ['code', 'b'], ['info', 'c']])
    const ranked = withSectionCode([{ doc: 0, score: 1 }, { doc: 3, score: 0.5 }, { doc: 4, score: 0.4 }], set)
    expect(ranked).toEqual([
      { doc: 0, score: 1 },
      { doc: 1, score: SECTION_CODE_WEIGHT.info },
      { doc: 2, score: SECTION_CODE_WEIGHT.info },
      { doc: 3, score: 0.5 },
      { doc: 4, score: 0.4 },
    ])
  })

  it('brings a ranked code snippet\'s siblings at the smaller weight, keeps a higher own score and never lowers one', () => {
    const set = setOf([['info', 'a'], ['code', 'a'], ['code', 'a'], ['code', 'a']])
    // Doc 1 (code) ranks first: its sibling doc 3 comes at the code weight of its score, more than
    // the explanation (doc 0) would give it; doc 2 keeps its own score, higher than either.
    expect(withSectionCode([{ doc: 1, score: 2 }, { doc: 2, score: 1.9 }, { doc: 0, score: 1 }], set)).toEqual([
      { doc: 1, score: 2 },
      { doc: 2, score: 1.9 },
      { doc: 3, score: SECTION_CODE_WEIGHT.code * 2 },
      { doc: 0, score: 1 },
    ])
    expect(SECTION_CODE_WEIGHT.code).toBeLessThan(SECTION_CODE_WEIGHT.info)
  })

  it(`brings at most ${CODE_PER_SECTION} code snippets of a section: those already ranked first, then in page order`, () => {
    const set = setOf([['info', 'a'], ['code', 'a'], ['code', 'a'], ['code', 'a'], ['code', 'a'], ['code', 'a']])
    // Doc 5 is ranked (low), so it is among the three; then docs 1 and 2, the first on the page.
    const ranked = withSectionCode([{ doc: 0, score: 1 }, { doc: 5, score: 0.01 }], set)
    expect(docs(ranked)).toEqual([0, 1, 2, 5])
    expect(ranked.slice(1).every((hit) => hit.score === SECTION_CODE_WEIGHT.info)).toBe(true)
  })

  it(`follows the first ${EXPLAINING} ranked snippets only, and changes nothing where their sections have no other code`, () => {
    const snippets: Array<['code' | 'info', string]> = []
    for (let s = 0; s <= EXPLAINING; s++) snippets.push(['info', `s${s}`], ['code', `s${s}`])
    const set = setOf(snippets)
    const infos = Array.from({ length: EXPLAINING + 1 }, (_, s) => ({ doc: 2 * s, score: 10 - s / 100 }))
    const brought = docs(withSectionCode(infos, set)).filter((doc) => doc % 2 === 1)
    expect(brought).toHaveLength(EXPLAINING)
    expect(brought).not.toContain(2 * EXPLAINING + 1)

    const alone = setOf([['code', 'a'], ['code', 'b'], ['info', 'c']])
    const ranked = [{ doc: 1, score: 3 }, { doc: 2, score: 2 }, { doc: 0, score: 1 }]
    expect(withSectionCode(ranked, alone)).toEqual(ranked)
    expect(withSectionCode([], alone)).toEqual([])
  })
})
