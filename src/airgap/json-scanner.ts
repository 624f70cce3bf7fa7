/**
 * JSON read from a file in pieces: the scanner walks the outer objects and arrays of a payload
 * byte by byte and cuts each inner value out to be parsed on its own, as any JSON from outside
 * (text/json-text.ts: UTF-8 only, nesting, no `__proto__` or `constructor` keys). Memory holds the
 * file's window and one value, so a payload of 100 MB never becomes text and a parse tree of
 * several times its size. The scan checks the punctuation between the values it walks, and keys
 * it meets there for `__proto__`, `constructor` and duplicates, so text that is not JSON is
 * refused as a whole parse would refuse it.
 *
 * A streaming JSON library (stream-json and the like) was not used: they build every value from
 * tokens in JavaScript, several times slower than slicing the bytes for the native parser, and
 * decode leniently where an import must refuse bytes that are not UTF-8.
 */
import { LecternError } from '../errors.js'
import { parseJsonBytes } from '../text/json-text.js'
import type { FileWindow } from './file-window.js'

/**
 * The most bytes one cut-out value may take. The largest valid snippet is 1,000,000 characters
 * (payload.ts), at most 6 MB as JSON even if every character is escaped; a larger value is not an
 * export, and parsing it would cost several times its size.
 */
export const MAX_VALUE_BYTES = 16 * 1024 * 1024

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d])
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
export const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
export const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor'])
const BOM = [0xef, 0xbb, 0xbf]

/** Bytes read between two turns of the event loop: about 25 ms of reading and staging. */
const YIELD_BYTES = 256 * 1024

export class JsonScanner {
  private at: number
  private yieldedAt = 0

  /** `what` names the bytes in refusals ("The body", a file name). */
  constructor(
    private readonly bytes: FileWindow,
    private readonly what: string,
  ) {
    // A byte order mark is dropped, as the UTF-8 decoder of a whole parse drops it.
    this.at = BOM.every((byte, i) => bytes.at(i) === byte) ? BOM.length : 0
  }

  notJson(): LecternError {
    return new LecternError('validation_error', `${this.what} is not valid JSON.`)
  }

  /** The next byte that is not whitespace (-1 at the end), without reading past it. */
  peek(): number {
    while (WHITESPACE.has(this.bytes.at(this.at))) this.at++
    return this.bytes.at(this.at)
  }

  /** Parses the value that starts here; `where` names it in the refusal of one over MAX_VALUE_BYTES. */
  value(where: string): unknown {
    return this.parse(this.skip(), where)
  }

  /** Parses the value that `skip` passed over. */
  parse([from, to]: [number, number], where: string): unknown {
    if (to - from > MAX_VALUE_BYTES) {
      throw new LecternError('validation_error', `${this.what} holds ${to - from} bytes at ${where}, over the ${MAX_VALUE_BYTES / (1024 * 1024)} MB one value may take. Nothing was imported.`)
    }
    return parseJsonBytes(this.bytes.slice(from, to), this.what)
  }

  /** Passes over the value that starts here without parsing it; returns where it lies. */
  skip(): [number, number] {
    this.peek()
    const from = this.at
    this.at = this.endOfValue(from)
    if (this.at === from) throw this.notJson()
    return [from, this.at]
  }

  /** Walks the object that starts here, key by key; `onKey` must read or skip the key's value. */
  async object(onKey: (key: string) => void | Promise<void>): Promise<void> {
    this.expect(OPEN_OBJECT)
    if (this.peek() === CLOSE_OBJECT) {
      this.at++
      return
    }
    const seen = new Set<string>()
    for (;;) {
      if (this.peek() !== QUOTE) throw this.notJson()
      const key = this.value('a key') as string
      if (FORBIDDEN_KEYS.has(key)) throw new LecternError('validation_error', `${this.what} may not contain __proto__ or constructor keys.`)
      if (seen.has(key)) throw new LecternError('validation_error', `${this.what} names "${key}" twice.`)
      seen.add(key)
      this.expect(COLON)
      await onKey(key)
      if (this.peek() === CLOSE_OBJECT) {
        this.at++
        return
      }
      this.expect(COMMA)
    }
  }

  /**
   * Walks the array that starts here; `onElement` must read or skip each element. Returns how many
   * it had. Gives the event loop a turn every YIELD_BYTES of the file: a server reading an import
   * of 100 MB keeps answering meanwhile.
   */
  async array(onElement: (index: number) => void | Promise<void>): Promise<number> {
    this.expect(OPEN_ARRAY)
    if (this.peek() === CLOSE_ARRAY) {
      this.at++
      return 0
    }
    for (let index = 0; ; index++) {
      await onElement(index)
      if (this.at - this.yieldedAt >= YIELD_BYTES) {
        this.yieldedAt = this.at
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
      if (this.peek() === CLOSE_ARRAY) {
        this.at++
        return index + 1
      }
      this.expect(COMMA)
    }
  }

  /** Only whitespace may follow the last value. */
  end(): void {
    if (this.peek() !== -1) throw this.notJson()
  }

  private expect(byte: number): void {
    if (this.peek() !== byte) throw this.notJson()
    this.at++
  }

  /**
   * Where the value starting at `from` ends: past its closing bracket or quote, or, for a
   * number, `true`, `false` or `null`, at the first byte that cannot belong to it. Brackets inside
   * strings do not count. Only finds the end; the value's own parse judges what lies between.
   */
  private endOfValue(from: number): number {
    const { bytes } = this
    const first = bytes.at(from)
    if (first === QUOTE) return this.endOfString(from)
    if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
      let at = from
      for (let c = bytes.at(at); c !== -1 && !WHITESPACE.has(c) && c !== COMMA && c !== CLOSE_OBJECT && c !== CLOSE_ARRAY; c = bytes.at(++at));
      return at
    }
    let depth = 0
    for (let at = from; at < bytes.length; at++) {
      const c = bytes.at(at)
      if (c === QUOTE) at = this.endOfString(at) - 1
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return at + 1
    }
    return bytes.length
  }

  /** Past the closing quote of the string starting at `from`, or the end of the bytes. */
  private endOfString(from: number): number {
    const { bytes } = this
    for (let at = from + 1; at < bytes.length; at++) {
      const c = bytes.at(at)
      if (c === BACKSLASH) at++
      else if (c === QUOTE) return at + 1
    }
    return bytes.length
  }
}
