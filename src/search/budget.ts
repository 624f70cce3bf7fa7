/**
 * Packs ranked snippets into a token budget: best first, skipping near-duplicates and any
 * snippet that no longer fits, so one long snippet cannot crowd out several good short ones.
 * The best snippet is always kept, even alone over budget, so an answer is never empty.
 */
import { createHash } from 'node:crypto'
import type { StoredSnippet } from '../store/snippets.js'
import { bodyText } from './terms.js'

export const DEFAULT_TOKENS = 5000
export const MIN_TOKENS = 500
export const MAX_TOKENS = 50_000
/** Tokens of the separator between two rendered snippets. */
export const SEPARATOR_TOKENS = 12

const fingerprint = (snippet: StoredSnippet) =>
  createHash('sha1').update(bodyText(snippet).replace(/\s+/g, ' ').trim().toLowerCase()).digest('hex')

export function packSnippets(ranked: StoredSnippet[], budget: number): StoredSnippet[] {
  const picked: StoredSnippet[] = []
  const seen = new Set<string>()
  let used = 0
  for (const snippet of ranked) {
    const print = fingerprint(snippet)
    if (seen.has(print)) continue
    const cost = snippet.tokens + (picked.length > 0 ? SEPARATOR_TOKENS : 0)
    if (picked.length > 0 && used + cost > budget) continue
    seen.add(print)
    picked.push(snippet)
    used += cost
    if (budget - used < 40) break
  }
  return picked
}
