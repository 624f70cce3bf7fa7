/**
 * The tokenizer every text signal shares: lexical search (src/text/terms.ts) and the hash
 * embedder read the same tokens, so a word and an identifier part match on both sides. A token
 * is a maximal run of letters, digits and joiners (`_ . - $`); an identifier token also yields
 * its parts: `fs.readFile` -> `fs`, `read`, `file`; `XMLHttpRequest` -> `XML`, `Http`, `Request`.
 *
 * It walks char codes directly and reports ranges of the input instead of building substrings,
 * so tokenizing a text allocates little.
 */

// Char classes inside a token.
const SEP = 1
const UPPER = 2
const LOWER = 3
const DIGIT = 4

// Per code unit: 0 unknown, 1 token char, 2 not. Filled lazily for non-ASCII so the Unicode
// regex runs once per distinct char, not once per occurrence.
const tokenCharCache = new Uint8Array(65_536)
const lowerCache = new Map<number, number>()
const LETTER_OR_DIGIT = /^[\p{L}\p{N}\p{M}]$/u

function isTokenChar(c: number): boolean {
  if (c < 128) {
    return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || isSeparator(c)
  }
  // Surrogate halves: treat astral chars (CJK extensions, emoji) as part of words.
  if (c >= 0xd800 && c <= 0xdfff) return true
  let known = tokenCharCache[c]
  if (known === 0) {
    known = LETTER_OR_DIGIT.test(String.fromCharCode(c)) ? 1 : 2
    tokenCharCache[c] = known
  }
  return known === 1
}

/** `_ . - $` join identifier parts: snake_case, kebab-case, fs.readFile, $scope. */
function isSeparator(c: number): boolean {
  return c === 95 || c === 46 || c === 45 || c === 36
}

export function lowerCode(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c
  let lower = lowerCache.get(c)
  if (lower === undefined) {
    const s = String.fromCharCode(c).toLowerCase()
    // Mappings that change length (e.g. U+0130) keep the original code unit.
    lower = s.length === 1 ? s.charCodeAt(0) : c
    lowerCache.set(c, lower)
  }
  return lower
}

function charClass(c: number): number {
  if (isSeparator(c)) return SEP
  if (c >= 48 && c <= 57) return DIGIT
  // Letters without case (CJK, marks) count as lower case: they never start a new part.
  return lowerCode(c) !== c ? UPPER : LOWER
}

/**
 * Calls `visit(start, end)` for each token: a maximal run of letters, digits and joiners,
 * trimmed of leading and trailing joiners (so `files.` and `__init__` give `files`, `init`).
 */
export function forEachToken(text: string, visit: (start: number, end: number) => void): void {
  const n = text.length
  let i = 0
  while (i < n) {
    while (i < n && !isTokenChar(text.charCodeAt(i))) i++
    let start = i
    while (i < n && isTokenChar(text.charCodeAt(i))) i++
    let end = i
    while (start < end && isSeparator(text.charCodeAt(start))) start++
    while (end > start && isSeparator(text.charCodeAt(end - 1))) end--
    if (end > start) visit(start, end)
  }
}

let partBounds = new Int32Array(64)

/**
 * Splits the token at [start, end) into identifier parts and writes their [start, end) pairs
 * into `partBounds`; returns the number of parts. Splits at joiners, at a lower-case letter or
 * digit followed by an upper-case one (`useEffect`), and before the last capital of a run that
 * starts a word (`XMLHttp` -> XML, Http). Digits stay attached (`base64Encode` -> base64, Encode).
 */
function splitParts(text: string, start: number, end: number): number {
  if (partBounds.length < (end - start + 1) * 2) partBounds = new Int32Array((end - start + 1) * 2)
  let count = 0
  let partStart = -1
  let prev = SEP
  for (let i = start; i < end; i++) {
    const cls = charClass(text.charCodeAt(i))
    if (cls === SEP) {
      if (partStart >= 0) count = pushPart(count, partStart, i)
      partStart = -1
    } else {
      const capitalAfterWord = cls === UPPER && (prev === LOWER || prev === DIGIT)
      const capitalStartsWord =
        cls === UPPER && prev === UPPER && i + 1 < end && charClass(text.charCodeAt(i + 1)) === LOWER
      if (partStart >= 0 && (capitalAfterWord || capitalStartsWord)) {
        count = pushPart(count, partStart, i)
        partStart = i
      } else if (partStart < 0) {
        partStart = i
      }
    }
    prev = cls
  }
  if (partStart >= 0) count = pushPart(count, partStart, end)
  return count
}

function pushPart(count: number, start: number, end: number): number {
  partBounds[count * 2] = start
  partBounds[count * 2 + 1] = end
  return count + 1
}


/**
 * Calls `visit(start, end)` for each identifier part of the token at [start, end); returns the
 * number of parts (a plain word has one part, itself, and is not visited).
 */
export function forEachPart(text: string, start: number, end: number, visit: (start: number, end: number) => void): number {
  const parts = splitParts(text, start, end)
  if (parts < 2) return parts
  // Copied first: `visit` may tokenize again and overwrite the shared bounds.
  const bounds = partBounds.slice(0, parts * 2)
  for (let p = 0; p < parts; p++) visit(bounds[p * 2], bounds[p * 2 + 1])
  return parts
}

/**
 * The words of `text` in order, lower-cased, each followed by its identifier parts when it has
 * more than one: `fs.readFile` -> `fs.readfile`, `fs`, `read`, `file`. Repeats are kept so
 * callers can count term frequencies.
 */
export function splitIdentifiers(text: string): string[] {
  const terms: string[] = []
  forEachToken(text, (start, end) => {
    terms.push(text.slice(start, end).toLowerCase())
    const parts = splitParts(text, start, end)
    if (parts < 2) return
    for (let p = 0; p < parts; p++) {
      terms.push(text.slice(partBounds[p * 2], partBounds[p * 2 + 1]).toLowerCase())
    }
  })
  return terms
}

