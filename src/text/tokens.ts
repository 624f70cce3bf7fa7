/**
 * Token counting with the cl100k_base encoding (gpt-tokenizer's default export), the budget
 * unit for snippets and responses.
 */
import { countTokens as countCl100k } from 'gpt-tokenizer'
import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base'
import { CL_AND_O_TOKEN_SPLIT_PATTERN } from 'gpt-tokenizer/encodingParams/constants'

/** Documentation about tokenizers quotes strings like `<|endoftext|>`; count them as plain text. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() }

/**
 * cl100k first cuts a text into pre-tokens (a word with the space before it, up to three digits,
 * a run of punctuation or of whitespace) and encodes each on its own, so a text's count is the
 * sum of its pre-tokens' counts. Documentation repeats its words: remembering each pre-token's
 * count spares gpt-tokenizer's lookups and merges for every occurrence after the first (an
 * ingest's token counts took 1.7x less time, bench/RESULTS.md). Special-token strings are plain
 * text here, so nothing but the pre-tokens decides the count.
 */
const PRE_TOKEN = new RegExp(CL_AND_O_TOKEN_SPLIT_PATTERN.source, CL_AND_O_TOKEN_SPLIT_PATTERN.flags)
/** About 10 MB at most; a job process lives long, and a new vocabulary simply starts over. */
const MAX_REMEMBERED = 100_000
const remembered = new Map<string, number>()

/**
 * Byte-pair merging takes time quadratic in a pre-token's length: a page holding a run of 100,000
 * spaces, or a "word" of 100,000 letters, would take hours to count. A longer pre-token is counted
 * in parts of this many characters, which can differ from the exact count by a token per part;
 * real text has no pre-token this long.
 */
const MAX_PIECE_CHARS = 1024

export function countTokens(text: string): number {
  let total = 0
  PRE_TOKEN.lastIndex = 0
  for (let match = PRE_TOKEN.exec(text); match !== null; match = PRE_TOKEN.exec(text)) {
    const piece = match[0]
    if (piece.length <= MAX_PIECE_CHARS) total += countPiece(piece)
    else for (const part of partsOf(piece)) total += countPiece(part)
  }
  return total
}

function countPiece(piece: string): number {
  let count = remembered.get(piece)
  if (count === undefined) {
    count = NON_ASCII.test(piece) ? countCl100k(piece, PLAIN_TEXT) : countAsciiPiece(piece)
    if (remembered.size >= MAX_REMEMBERED) remembered.clear()
    remembered.set(piece, count)
  }
  return count
}

/** A long pre-token in parts of at most MAX_PIECE_CHARS, never cutting a surrogate pair. */
function* partsOf(piece: string): Generator<string> {
  let from = 0
  while (from < piece.length) {
    let to = Math.min(from + MAX_PIECE_CHARS, piece.length)
    if (to < piece.length && /[\uDC00-\uDFFF]/.test(piece[to])) to--
    yield piece.slice(from, to)
    from = to
  }
}

const NON_ASCII = /[^\x00-\x7f]/
let asciiRanks: Map<string, number> | undefined

/**
 * cl100k's ASCII tokens, by text: their rank. The ranks list gives a token as a string when its
 * bytes are UTF-8 text, which every ASCII token is. Built at the first count (about 20 ms).
 */
function asciiRanksOf(): Map<string, number> {
  if (asciiRanks) return asciiRanks
  asciiRanks = new Map()
  for (const [rank, token] of cl100kRanks.entries()) {
    if (typeof token === 'string' && !NON_ASCII.test(token)) asciiRanks.set(token, rank)
  }
  return asciiRanks
}

/**
 * The count of one ASCII pre-token: tiktoken's byte-pair merge (join the adjacent pair of lowest
 * rank, the leftmost on a tie, until no pair is a token), as gpt-tokenizer runs it. An ASCII
 * text's bytes are its characters, so a pair is looked up as a substring; gpt-tokenizer decodes
 * each pair's bytes to a string first, which made a first sight 2.5x slower (bench/RESULTS.md).
 * Other text goes to gpt-tokenizer.
 */
function countAsciiPiece(piece: string): number {
  const ranks = asciiRanksOf()
  if (ranks.has(piece)) return 1
  const rankOf = (from: number, to: number) => ranks.get(piece.slice(from, to)) ?? Infinity
  // Part i is piece[starts[i], starts[i + 1]); pairRanks[i] is the rank of parts i and i + 1 joined.
  let parts = piece.length
  const starts = Int32Array.from({ length: parts + 1 }, (_, i) => i)
  const pairRanks = Float64Array.from({ length: parts }, (_, i) => (i + 1 < parts ? rankOf(i, i + 2) : Infinity))
  for (;;) {
    let lowest = Infinity
    let at = -1
    for (let i = 0; i < parts - 1; i++) {
      if (pairRanks[i] < lowest) {
        lowest = pairRanks[i]
        at = i
      }
    }
    if (at === -1) return parts
    starts.copyWithin(at + 1, at + 2, parts + 1)
    pairRanks.copyWithin(at, at + 1, parts)
    parts--
    pairRanks[at] = at + 1 < parts ? rankOf(starts[at], starts[at + 2]) : Infinity
    if (at > 0) pairRanks[at - 1] = rankOf(starts[at - 1], starts[at + 1])
  }
}

/**
 * Coarsest to finest: paragraphs, then lines (lists and tables keep one item per line), then
 * sentences, then words. A unit is only cut further when it alone is over the budget.
 */
const LEVELS: Array<{ split: (text: string) => string[]; joiner: string }> = [
  { split: (text) => text.split(/\n[ \t]*\n/), joiner: '\n\n' },
  { split: (text) => text.split('\n'), joiner: '\n' },
  { split: (text) => text.split(/(?<=[.!?:;])\s+/), joiner: ' ' },
  { split: (text) => text.split(/\s+/), joiner: ' ' },
]

/**
 * Splits prose into parts of at most `maxTokens` tokens each, cutting at the coarsest boundary
 * that works and never inside a word. A single word longer than the budget stays whole.
 */
export function splitByTokens(text: string, maxTokens: number): string[] {
  const trimmed = text.trim()
  if (trimmed === '') return []
  return splitAtLevel(trimmed, maxTokens, 0)
}

function splitAtLevel(text: string, maxTokens: number, level: number): string[] {
  if (level >= LEVELS.length || countTokens(text) <= maxTokens) return [text]
  const { split, joiner } = LEVELS[level]
  // Only trailing whitespace goes: leading indentation carries nesting of list lines.
  const units = split(text).map((unit) => unit.trimEnd()).filter((unit) => unit.trim() !== '')
  if (units.length <= 1) return splitAtLevel(text, maxTokens, level + 1)
  const pieces = units.flatMap((unit) => splitAtLevel(unit, maxTokens, level + 1))
  return pack(pieces, joiner, maxTokens)
}

/** Greedily joins consecutive pieces while the joined text stays within the budget. */
function pack(pieces: string[], joiner: string, maxTokens: number): string[] {
  const parts: string[] = []
  let current = ''
  for (const piece of pieces) {
    const candidate = current === '' ? piece : current + joiner + piece
    if (current !== '' && countTokens(candidate) > maxTokens) {
      parts.push(current)
      current = piece
    } else {
      current = candidate
    }
  }
  if (current !== '') parts.push(current)
  return parts
}
