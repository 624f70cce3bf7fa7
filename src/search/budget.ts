/**
 * Packs ranked snippets into a token budget: best first, skipping any snippet that no longer
 * fits, so one long snippet cannot crowd out several good short ones, and any snippet that
 * nearly repeats one already packed (the same example on another page), so the budget buys
 * distinct material. The best snippet is always kept, even alone over budget, so an answer is
 * never empty. Exact duplicates never get here: ingest keeps one snippet per distinct body.
 */
import { LecternError } from '../errors.js'
import type { StoredSnippet } from '../store/snippets.js'

export const DEFAULT_TOKENS = 5000
export const MIN_TOKENS = 500
export const MAX_TOKENS = 50_000

/**
 * Refuses a budget that is not a whole number from MIN_TOKENS to MAX_TOKENS. The REST schema
 * says the same, but its validator turns "Infinity" and "1e309" into Infinity and skips range
 * checks for numbers that are not finite, so the rule is kept here, where the budget is used.
 */
export function checkTokenBudget(tokens: number): void {
  if (!Number.isSafeInteger(tokens) || tokens < MIN_TOKENS || tokens > MAX_TOKENS) {
    throw new LecternError('validation_error', `tokens must be a whole number from ${MIN_TOKENS} to ${MAX_TOKENS}.`)
  }
}
/** Tokens of the separator between two rendered snippets. */
export const SEPARATOR_TOKENS = 12

export function packSnippets<T extends Pick<StoredSnippet, 'tokens'>>(
  ranked: T[],
  budget: number,
  isNearDuplicate: (candidate: T, packed: T) => boolean = () => false,
): T[] {
  const picked: T[] = []
  let used = 0
  for (const snippet of ranked) {
    const cost = snippet.tokens + (picked.length > 0 ? SEPARATOR_TOKENS : 0)
    if (picked.length > 0 && used + cost > budget) continue
    if (picked.some((packed) => isNearDuplicate(snippet, packed))) continue
    picked.push(snippet)
    used += cost
    if (budget - used < 40) break
  }
  return picked
}
