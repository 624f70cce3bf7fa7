/**
 * Terms for lexical search: the tokenizer's words and identifier parts, lower-cased, without
 * English function words, reduced to their Porter stem (`running` and `runs` meet at `run`), so
 * "read a file" finds `fs.readFile` and `readFile` finds "read file". Documents and questions go
 * through the same steps; only questions drop repeats.
 */
import { stemmer } from 'stemmer'
import { splitIdentifiers } from './tokenizer.js'

/** Words that say nothing about which snippet answers: function words and the words of asking. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a an and are as at be but by can do does for from get how i if in into is it its me my of on or should so than that the
   their then there these this to use used using want was way we what when where which who why will with without would you your
   example examples show shows need
   all any each every same other some such only own also just like very been being has have had our us they them were while
   about could might must may both make makes made`.split(/\s+/),
)

/** At most this many distinct terms of a question count: beyond, a long question ranks no better. */
export const MAX_QUESTION_TERMS = 16

const stems = new Map<string, string>()

function stem(word: string): string {
  let stemmed = stems.get(word)
  if (stemmed === undefined) {
    stemmed = stemmer(word)
    // Bounded: a corpus has a few hundred thousand distinct words at most, clients send any.
    if (stems.size > 500_000) stems.clear()
    stems.set(word, stemmed)
  }
  return stemmed
}

/** The words of a text in order, lower-cased, identifier parts after their identifier, no stopwords. */
export function wordsOf(text: string): string[] {
  const words: string[] = []
  for (const term of splitIdentifiers(text)) {
    for (const word of term.split(/[^\p{L}\p{N}]+/u)) {
      if (word.length >= 2 && !STOPWORDS.has(word)) words.push(word)
    }
  }
  return words
}

/** The stemmed terms of a document field, repeats kept for term frequencies. */
export function indexTerms(text: string): string[] {
  return wordsOf(text).map(stem)
}

/**
 * The words of the question asked last. A request reads its question's words more than once (its
 * terms for the ranking, its topics for the metrics): the second time costs a comparison.
 */
let lastQuestion: string | undefined
let lastWords: readonly string[] = []

function wordsOfQuestion(question: string): readonly string[] {
  if (question !== lastQuestion) {
    lastWords = wordsOf(question)
    lastQuestion = question
  }
  return lastWords
}

/** The distinct meaningful words of a question, unstemmed (library names match them as written). */
export function questionWords(question: string, max = MAX_QUESTION_TERMS): string[] {
  return [...new Set(wordsOfQuestion(question))].slice(0, max)
}

/** The distinct stemmed terms of a question. */
export function questionTerms(question: string, max = MAX_QUESTION_TERMS): string[] {
  return [...new Set(wordsOfQuestion(question).map(stem))].slice(0, max)
}
