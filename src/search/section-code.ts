/**
 * Code next to its explanation. A section's prose and its code are separate snippets, and the
 * code often shares few words with the question (the prose says "hide what the user types", the
 * code says `hide_input=True`), so the explanation can rank first while its code is far down or
 * not among the candidates at all. When an info snippet ranks, its section's first code snippets
 * rank close behind it: an AI tool gets the example the explanation is about, and the budget
 * spends on that code rather than on code from elsewhere. Measured on the development set with the
 * hash embedder (bench/RESULTS.md, issue 30): codeHit@5 0.684 -> 0.724, the holdout questions
 * alike; the weights below are the measured ones.
 */
import type { SetSections } from '../index/set-sections.js'
import type { RenderedSnippet } from './render.js'
import type { RankedDoc } from './fusion.js'

/** The best-ranked info snippets whose sections' code is brought in. */
export const EXPLAINED_INFOS = 10
/** A section's code snippets that come with its explanation, at most. */
export const CODE_PER_SECTION = 3
/** A section's code scores this share of its explanation's score (unless it scores more by itself). */
export const SECTION_CODE_WEIGHT = 0.8

export interface SectionsOfSet {
  sections: Pick<SetSections, 'codeOfSection'>
  snippets: { kind(doc: number): RenderedSnippet['kind'] }
}

/**
 * `ranked` (best first) with the code of the best info snippets' sections scored beside them:
 * each section's first CODE_PER_SECTION code snippets, those already ranked first, then in page
 * order, score SECTION_CODE_WEIGHT x the info snippet's score when that is more than their own.
 * Best first again; ties go to the lower doc (page order).
 */
export function withSectionCode(ranked: readonly RankedDoc[], set: SectionsOfSet): RankedDoc[] {
  const scores = new Map<number, number>()
  const rank = new Map<number, number>()
  ranked.forEach((hit, i) => {
    scores.set(hit.doc, hit.score)
    rank.set(hit.doc, i)
  })
  let explained = 0
  for (const hit of ranked) {
    if (set.snippets.kind(hit.doc) !== 'info') continue
    if (explained++ === EXPLAINED_INFOS) break
    const code = [...set.sections.codeOfSection(hit.doc)]
    const first = code.sort((a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || a - b).slice(0, CODE_PER_SECTION)
    const score = SECTION_CODE_WEIGHT * hit.score
    for (const doc of first) {
      const own = scores.get(doc)
      if (own === undefined || own < score) scores.set(doc, score)
    }
  }
  return [...scores].map(([doc, score]) => ({ doc, score })).sort((a, b) => b.score - a.score || a.doc - b.doc)
}
