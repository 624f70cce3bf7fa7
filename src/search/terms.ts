/**
 * What goes into the FTS columns of a snippet, and how a question becomes an FTS5 query.
 * Identifiers are split on both sides (`useEffect` also indexes and matches `use`, `effect`),
 * so "read a file" finds `fs.readFile` and `readFile` finds "read file".
 */
import { splitIdentifiers } from '../text/tokenizer.js'
import type { NewSnippet, SnippetIndexText } from '../store/snippets.js'

const STOPWORDS = new Set(
  `a an and are as at be but by can do does for from get how i if in into is it its me my of on or should so than that the
   their then there these this to use used using want was way we what when where which who why will with without would you your
   example examples show shows need
   all any each every same other some such only own also just like very been being has have had our us they them were while
   about could might must may both`.split(/\s+/),
)

/** The body text of a snippet: every code alternative for code, the content for info. */
export function bodyText(snippet: Pick<NewSnippet, 'kind' | 'body'>): string {
  if (snippet.kind === 'info') return snippet.body
  return (JSON.parse(snippet.body) as Array<{ code: string }>).map((c) => c.code).join('\n')
}

/**
 * URL hosts say where an example runs, not what it does; repeated in every example of an API
 * (a curl per operation), they would also make their words worthless to BM25 for that library.
 */
const withoutUrlHosts = (text: string) => text.replace(/\bhttps?:\/\/[^/\s'"`<>)]+/g, ' ')

export function indexTextOf(snippet: NewSnippet): SnippetIndexText {
  const body = withoutUrlHosts(bodyText(snippet))
  // An included file's path names the example (`tutorial001`, `query_params`): questions about it match.
  const context = [snippet.description, snippet.breadcrumb, snippet.pageTitle, ...(snippet.includes ?? [])].filter(Boolean).join('\n')
  return {
    title: snippet.title,
    context,
    body,
    idents: splitIdentifiers(`${snippet.title}\n${context}\n${body}`).join(' '),
  }
}

/**
 * The distinct, meaningful terms of a question, identifier parts included. At most 12: bm25
 * scores every row any term matches, so a long question would cost more and rank no better.
 */
export function questionTerms(question: string): string[] {
  const seen = new Set<string>()
  for (const term of splitIdentifiers(question)) {
    for (const word of term.split(/[^\p{L}\p{N}_]+/u)) {
      if (word.length < 2 || STOPWORDS.has(word)) continue
      seen.add(word)
    }
  }
  return [...seen].slice(0, 12)
}

/** An FTS5 MATCH expression: any term may match; bm25 rewards the ones that match more. */
export function matchExpression(terms: string[]): string | undefined {
  if (terms.length === 0) return undefined
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ')
}
