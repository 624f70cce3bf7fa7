/**
 * What a request adds to a library's metrics besides its count (src/library/metrics.ts), reduced
 * before anything is kept: the question's topics are its distinct meaningful words (the search
 * tokenizer's words, stopwords dropped), never the question; the country is an ISO 3166-1 alpha-2
 * code from the edge proxy's header (`metrics.countryHeader`), never the address.
 */
import { questionWords } from '../text/terms.js'

/**
 * A topic is a word of letters, with at most a few digits (`oauth2`, `es2022`): longer digit runs
 * and long strings are more likely ids or secrets pasted into a question than topics.
 */
const TOPIC = /^\p{L}[\p{L}\p{N}]{1,29}$/u
const MAX_TOPIC_DIGITS = 4

export function topicsOf(question: string): string[] {
  return questionWords(question).filter((word) => TOPIC.test(word) && (word.match(/\p{N}/gu)?.length ?? 0) <= MAX_TOPIC_DIGITS)
}

export const UNKNOWN_COUNTRY = 'unknown'

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' })
/** Two-letter codes that name no country: user-assigned (AA, QM-QZ, XA-XZ, ZZ) and exceptionally reserved (EU, EZ, UN). */
const NOT_A_COUNTRY = /^(AA|Q[M-Z]|X[A-Z]|ZZ|EU|EZ|UN)$/

/** An assigned ISO-2 country code from the header's value, upper-cased; else `unknown`. */
export function countryOf(header: string | string[] | undefined): string {
  const code = (Array.isArray(header) ? header[0] : header)?.trim().toUpperCase() ?? ''
  if (!/^[A-Z]{2}$/.test(code) || NOT_A_COUNTRY.test(code) || regionNames.of(code) === undefined) return UNKNOWN_COUNTRY
  return code
}
