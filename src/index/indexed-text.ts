/**
 * What the lexical index reads of a snippet: its title; its context (the prose that introduces
 * it, its breadcrumb, its page's title, the files its code was included from, whose names name
 * the example); and its body (every code alternative, or the prose).
 */
import type { IndexedText } from './lexical-index.js'
import type { StoredSnippet } from '../store/snippets.js'

/** The body text of a snippet: every code alternative for code, the content for info. */
export function bodyText(snippet: Pick<StoredSnippet, 'kind' | 'body'>): string {
  if (snippet.kind === 'info') return snippet.body
  return (JSON.parse(snippet.body) as Array<{ code: string }>).map((c) => c.code).join('\n')
}

/**
 * URL hosts say where an example runs, not what it does; repeated in every example of an API
 * (a curl per operation), they would also make their words worthless for that library.
 */
const withoutUrlHosts = (text: string) => text.replace(/\bhttps?:\/\/[^/\s'"`<>)]+/g, ' ')

export function indexedTextOf(snippet: Pick<StoredSnippet, 'kind' | 'title' | 'description' | 'breadcrumb' | 'pageTitle' | 'body' | 'includes'>): IndexedText {
  return {
    title: snippet.title,
    context: [snippet.description, snippet.breadcrumb, snippet.pageTitle, ...snippet.includes].filter(Boolean).join('\n'),
    body: withoutUrlHosts(bodyText(snippet)),
  }
}
