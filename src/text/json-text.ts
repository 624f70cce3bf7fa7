/**
 * JSON text from outside (request bodies, bundle entries, payload files) nests at most
 * MAX_JSON_DEPTH arrays and objects deep, checked before it is parsed. No Lectern document comes
 * near that depth, and refusing deeper text up front keeps every walk over a parsed value (schema
 * validation, checks, serialization) far from the stack limit that a body of 100,000 nested
 * arrays reaches. Like every JSON body Fastify parses, it may not hold `__proto__` or
 * `constructor` keys (secure-json-parse, Fastify's own), which a later merge or copy of the value
 * would turn into prototype pollution.
 */
import secureJson from 'secure-json-parse'
import { LecternError } from '../errors.js'

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

/** Parses JSON text from outside; too deep, not JSON or poisoned is a `validation_error` naming `what`. */
export function parseJsonText(text: string, what: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeeplyNested(what)
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch {
    // Both refusals are SyntaxErrors: valid JSON was refused for a key.
    if (isJson(text)) throw new LecternError('validation_error', `${what} may not contain __proto__ or constructor keys.`)
    throw new LecternError('validation_error', `${what} is not valid JSON.`)
  }
}

/** Parses JSON bytes from outside: UTF-8 only (a lenient decoder would turn bad bytes into U+FFFD), then as parseJsonText. */
export function parseJsonBytes(bytes: Uint8Array, what: string): unknown {
  let text: string
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    throw new LecternError('validation_error', `${what} is not valid UTF-8 text. Nothing was imported.`)
  }
  return parseJsonText(text, what)
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** Whether `text` is JSON at all: tells a refused key from text that does not parse. */
export function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
