/**
 * A JSON payload file (`{"libraries": [...], "force": false}`, up to 100 MB) read one library at
 * a time. Parsed whole, the payload is its text (twice its bytes once it holds one character
 * outside Latin-1), its parse tree and every library's conversion alive at once, and the import
 * process peaked at about 1 GB for 99 MB (bench/RESULTS.md). Here only the top level is scanned:
 * each element of `libraries` and each other top-level value is cut out of the bytes and parsed
 * on its own, as a bundle's entries are, so memory holds the file's bytes and one library.
 *
 * Each cut-out value is read as any JSON from outside (json-text.ts: UTF-8 only, nesting, no
 * `__proto__` or `constructor` keys), a top-level key too; the scan itself checks the
 * punctuation between them, so text that is not JSON is refused as it would be parsed whole.
 */
import { LecternError } from '../errors.js'
import { parseJsonBytes } from '../json-text.js'
import { noLibraries, notAPayload } from './payload.js'

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d])
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor'])

const BOM = [0xef, 0xbb, 0xbf]

/**
 * Hands each element of the payload's `libraries` to `onLibrary`, parsed, in order, and returns
 * the payload's own `force`. Throws `validation_error` naming `what` for bytes that are not a
 * payload of JSON in UTF-8, possibly after some elements were handed over.
 */
export function forEachPayloadLibrary(bytes: Buffer, what: string, onLibrary: (raw: unknown) => void): { force: boolean } {
  const notJson = () => new LecternError('validation_error', `${what} is not valid JSON.`)
  // A byte order mark is dropped, as the UTF-8 decoder of a whole parse drops it.
  let at = BOM.every((byte, i) => bytes[i] === byte) ? BOM.length : 0
  const skipSpace = () => {
    while (at < bytes.length && WHITESPACE.has(bytes[at])) at++
  }
  const expect = (byte: number) => {
    skipSpace()
    if (bytes[at] !== byte) throw notJson()
    at++
  }
  /** The value starting at `at` (after whitespace), parsed; `at` moves past it. */
  const value = (): unknown => {
    skipSpace()
    const from = at
    at = endOfValue(bytes, at)
    if (at === from) throw notJson()
    return parseJsonBytes(bytes.subarray(from, at), what)
  }

  skipSpace()
  // Anything but an object is not a payload: parsed whole, it is refused as not JSON or as not one.
  if (bytes[at] !== OPEN_OBJECT) {
    parseJsonBytes(bytes, what)
    throw notAPayload()
  }
  at++
  let libraries: number | undefined
  let force = false
  const seen = new Set<string>()
  skipSpace()
  if (bytes[at] === CLOSE_OBJECT) at++
  else {
    for (;;) {
      skipSpace()
      if (bytes[at] !== QUOTE) throw notJson()
      const key = value() as string
      if (FORBIDDEN_KEYS.has(key)) throw new LecternError('validation_error', `${what} may not contain __proto__ or constructor keys.`)
      if (seen.has(key)) throw new LecternError('validation_error', `${what} names "${key}" twice.`)
      seen.add(key)
      expect(COLON)
      skipSpace()
      if (key === 'libraries' && bytes[at] === OPEN_ARRAY) libraries = elements()
      else if (key === 'force') force = value() === true
      else value()
      skipSpace()
      if (bytes[at] === CLOSE_OBJECT) {
        at++
        break
      }
      expect(COMMA)
    }
  }
  skipSpace()
  if (at !== bytes.length) throw notJson()
  if (libraries === undefined) throw notAPayload()
  if (libraries === 0) throw noLibraries()
  return { force }

  /** The array at `at`, element by element; returns how many it had. */
  function elements(): number {
    at++
    let count = 0
    skipSpace()
    if (bytes[at] === CLOSE_ARRAY) {
      at++
      return 0
    }
    for (;;) {
      onLibrary(value())
      count++
      skipSpace()
      if (bytes[at] === CLOSE_ARRAY) {
        at++
        return count
      }
      expect(COMMA)
    }
  }
}

/**
 * Where the JSON value starting at `from` ends: past its closing bracket or quote, or, for a
 * number, `true`, `false` or `null`, at the first byte that cannot belong to it. Brackets inside
 * strings do not count. Only finds the end; the value's own parse judges what lies between.
 */
function endOfValue(bytes: Buffer, from: number): number {
  const first = bytes[from]
  if (first === QUOTE) return endOfString(bytes, from)
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let at = from
    while (at < bytes.length && !WHITESPACE.has(bytes[at]) && bytes[at] !== COMMA && bytes[at] !== CLOSE_OBJECT && bytes[at] !== CLOSE_ARRAY) at++
    return at
  }
  let depth = 0
  for (let at = from; at < bytes.length; at++) {
    const c = bytes[at]
    if (c === QUOTE) at = endOfString(bytes, at) - 1
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return at + 1
  }
  return bytes.length
}

/** Past the closing quote of the string starting at `from`, or the end of the bytes. */
function endOfString(bytes: Buffer, from: number): number {
  for (let at = from + 1; at < bytes.length; at++) {
    if (bytes[at] === BACKSLASH) at++
    else if (bytes[at] === QUOTE) return at + 1
  }
  return bytes.length
}
