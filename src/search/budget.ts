/**
 * Packs ranked snippets into a token budget: best first, skipping near-duplicates and any
 * snippet that no longer fits, so one long snippet cannot crowd out several good short ones.
 * The best snippet is always kept, even alone over budget, so an answer is never empty.
 */
import type { StoredSnippet } from '../store/snippets.js'

export const DEFAULT_TOKENS = 5000
export const MIN_TOKENS = 500
export const MAX_TOKENS = 50_000
/** Tokens of the separator between two rendered snippets. */
export const SEPARATOR_TOKENS = 12

/**
 * Identical snippets were merged at ingest; this catches the near-duplicates that remain, the
 * same code or prose under another title. The stored body (JSON for code) differs between two
 * such snippets only in white space and case, so it serves as its own key without parsing.
 */
const fingerprint = (snippet: StoredSnippet) => `${snippet.kind}:${snippet.body.replace(/\s+/g, ' ').trim().toLowerCase()}`

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
