/**
 * Browsing a library's snippets page by page (the dashboard's library page): which pages of its
 * docs the live set of a version holds, and the snippets made from one of them, in page order.
 * A page is a snippet's source without its `#anchor`: a file of a repository, a URL, an
 * operation of an OpenAPI spec's file.
 */
import type { Caller } from './access.js'
import { LecternError } from './errors.js'
import { unpinned } from './library-admin.js'
import { codeListOf, type CodeExample } from './search/render.js'
import { findLibrary } from './search/resolve.js'
import type { Store } from './store/index.js'

export interface DocPage {
  page: string
  title: string
  snippets: number
}

export interface BrowsedSnippet {
  kind: 'code' | 'info'
  title: string
  description: string
  breadcrumb: string
  source: string
  tokens: number
  /** Code snippets: their examples. */
  codeList?: CodeExample[]
  /** Info snippets: their text. */
  content?: string
}

function liveSet(store: Store, rawId: string, tag: string, caller: Caller): number {
  const { library } = findLibrary(store.libraries, unpinned(rawId, 'The ID'), caller)
  const version = store.libraries.version(library.pk, tag)
  if (!version) throw new LecternError('tag_not_found', `${library.id} has no version ${tag}.`)
  if (version.currentSet === null) throw new LecternError('library_not_finalized', `${library.id}${tag ? `@${tag}` : ''} has no snippets yet: its first job has not finished.`)
  return version.currentSet
}

export function pagesOfLibrary(store: Store, rawId: string, tag: string, caller: Caller): DocPage[] {
  return store.snippets.pagesOfSet(liveSet(store, rawId, tag, caller))
}

export function snippetsOfPage(store: Store, rawId: string, tag: string, page: string, caller: Caller): BrowsedSnippet[] {
  const found = store.snippets.snippetsOfPage(liveSet(store, rawId, tag, caller), page)
  if (found.length === 0) throw new LecternError('not_found', `${rawId} has no page ${page}.`)
  return found.map((s) => ({
    kind: s.kind,
    title: s.title,
    description: s.description,
    breadcrumb: s.breadcrumb,
    source: s.source,
    tokens: s.tokens,
    ...(s.kind === 'code' ? { codeList: codeListOf(s) } : { content: s.body }),
  }))
}
