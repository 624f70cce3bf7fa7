/**
 * Code next to its explanation. A section's prose and its code are separate snippets, and the
 * code often shares few words with the question (the prose says "hide what the user types", the
 * code says `hide_input=True`), so the explanation can rank first while its code is far down or
 * not among the candidates at all; and of a section's several code snippets the one that ranked
 * may not be the one that answers. So the best-ranked snippets bring their section's first code
 * snippets close behind them: an AI tool gets the example the explanation is about, and the
 * budget spends on that section's code rather than on code from elsewhere.
 *
 * Measured on the development set with the hash embedder (bench/RESULTS.md, issue 30), the
 * weights chosen on its tuning questions: codeHit@5 0.684 -> 0.747, the holdout questions
 * 0.600 -> 0.673, Hit@5 and MRR@10 within a question of before. A ranked code snippet's
 * siblings weigh less than a ranked explanation's code: the ranked one already gives the reader
 * code, the others are its alternatives or its next steps.
 */
import type { SetSections } from '../index/set-sections.js'
import type { RankedDoc } from './fusion.js'
import type { RenderedSnippet } from '../index/render.js'

/** The best-ranked snippets whose sections' code is brought in. */
export const EXPLAINING = 10
/** A section's code snippets that come with a ranked snippet of the section, at most. */
export const CODE_PER_SECTION = 3
/** A section's code scores this share of the ranked snippet's score (unless it scores more by itself), by that snippet's kind. */
export const SECTION_CODE_WEIGHT: Readonly<Record<RenderedSnippet['kind'], number>> = { info: 0.8, code: 0.7 }

export interface SectionsOfSet {
  sections: Pick<SetSections, 'codeOfSection'>
  snippets: { kind(doc: number): RenderedSnippet['kind'] }
}

/**
 * `ranked` (best first) with the code of the first EXPLAINING snippets' sections scored behind
 * them: each such section's first CODE_PER_SECTION code snippets (those already ranked first,
 * then in page order) score SECTION_CODE_WEIGHT x the ranked snippet's score when that is more
 * than their own. Best first again; ties go to the lower doc (page order).
 */
export function withSectionCode(ranked: readonly RankedDoc[], set: SectionsOfSet): RankedDoc[] {
  const scores = new Map<number, number>()
  const rank = new Map<number, number>()
  ranked.forEach((hit, i) => {
    scores.set(hit.doc, hit.score)
    rank.set(hit.doc, i)
  })
  for (const hit of ranked.slice(0, EXPLAINING)) {
    const code = [...set.sections.codeOfSection(hit.doc)]
    const first = code.sort((a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || a - b).slice(0, CODE_PER_SECTION)
    const score = SECTION_CODE_WEIGHT[set.snippets.kind(hit.doc)] * hit.score
    for (const doc of first) {
      const own = scores.get(doc)
      if (own === undefined || own < score) scores.set(doc, score)
    }
  }
  return [...scores].map(([doc, score]) => ({ doc, score })).sort((a, b) => b.score - a.score || a.doc - b.doc)
}
