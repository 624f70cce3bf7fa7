/**
 * JSON text from outside (request bodies, bundle entries, payload files) nests at most
 * MAX_JSON_DEPTH arrays and objects deep, checked before it is parsed. No Lectern document comes
 * near that depth, and refusing deeper text up front keeps every walk over a parsed value (schema
 * validation, checks, serialization) far from the stack limit that a body of 100,000 nested
 * arrays reaches.
 */
import { LecternError } from './errors.js'

export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPENERS = new Set([0x5b, 0x7b])
const CLOSERS = new Set([0x5d, 0x7d])

/** Whether arrays and objects in `text` nest deeper than `limit`; brackets inside strings do not count. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) {
      inString = true
    } else if (OPENERS.has(c)) {
      if (++depth > limit) return true
    } else if (CLOSERS.has(c)) {
      depth--
    }
  }
  return false
}

/** The refusal of text nested too deep; `what` names it ("The body"). */
export function tooDeeplyNested(what: string): LecternError {
  return new LecternError('validation_error', `${what} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`)
}

/** Parses JSON text from outside; too deep or not JSON is a `validation_error` naming `what`. */
export function parseJsonText(text: string, what: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeeplyNested(what)
  try {
    return JSON.parse(text)
  } catch {
    throw new LecternError('validation_error', `${what} is not valid JSON.`)
  }
}
