/**
 * Browsing a library's snippets page by page (the dashboard's library page): which pages of its
 * docs the live set of a version holds, and the snippets made from one of them, in page order.
 * A page is a snippet's source without its `#anchor`: a file of a repository (as its web link,
 * `https://github.com/acme/widgets/blob/<commit>/docs/guide.md`), a URL, an operation of an
 * OpenAPI spec's file. A page is asked for by that name or by its path (`docs/guide.md`), which,
 * unlike the link, stays the same when a refresh picks up a new commit.
 */
import type { Caller } from './access.js'
import { LecternError } from '../errors.js'
import { unpinned } from './admin.js'
import { codeListOf, type CodeExample } from '../index/render.js'
import { findLibrary, requireServable } from '../search/resolve.js'
import type { Store } from '../store/index.js'

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

/** The live set of a version; a version without one answers as /v2/context does (202 while its first job runs, its failure once it failed). */
async function liveSet(store: Store, rawId: string, tag: string, caller: Caller): Promise<number> {
  const { library } = await findLibrary(store.libraries, unpinned(rawId, 'The ID'), caller)
  const version = await store.libraries.version(library.pk, tag)
  if (!version) throw new LecternError('tag_not_found', `${library.id} has no version ${tag}.`)
  return requireServable(library, version, caller)
}

/**
 * The page a request names: the page itself, else the page whose name ends with it as a path
 * (`docs/guide.md`, `README.md`), the shortest first, so `README.md` is the repository's own.
 */
async function namedPage(store: Store, setPk: number, asked: string): Promise<string | undefined> {
  const pages = (await store.snippets.pagesOfSet(setPk)).map((p) => p.page)
  if (pages.includes(asked)) return asked
  const path = asked.replace(/^\/+/, '')
  if (path === '') return undefined
  return pages.filter((page) => page.endsWith(`/${path}`)).sort((a, b) => a.length - b.length)[0]
}

export async function pagesOfLibrary(store: Store, rawId: string, tag: string, caller: Caller): Promise<DocPage[]> {
  return await store.snippets.pagesOfSet(await liveSet(store, rawId, tag, caller))
}

/** A page's snippets, with the page's own name (the request may have named it by its path). */
export async function snippetsOfPage(store: Store, rawId: string, tag: string, page: string, caller: Caller): Promise<{ page: string; snippets: BrowsedSnippet[] }> {
  const setPk = await liveSet(store, rawId, tag, caller)
  const named = await namedPage(store, setPk, page)
  const found = named === undefined ? [] : await store.snippets.snippetsOfPage(setPk, named)
  if (named === undefined || found.length === 0) throw new LecternError('not_found', `${rawId} has no page ${page}: the pages endpoint lists them (/api/libraries${unpinned(rawId, 'The ID')}/pages).`)
  const snippets = found.map((s) => ({
    kind: s.kind,
    title: s.title,
    description: s.description,
    breadcrumb: s.breadcrumb,
    source: s.source,
    tokens: s.tokens,
    ...(s.kind === 'code' ? { codeList: codeListOf(s) } : { content: s.body }),
  }))
  return { page: named, snippets }
}
