/**
 * From documents to snippets: parse each document, shape its snippets, count their tokens and
 * keep identical content once, where it is best explained. Building a set from them is
 * src/index/build.ts.
 */
import { createHash } from 'node:crypto'
import { parseDocument } from '../parse/index.js'
import type { ParseContext, ParsedSnippet, SourceDocument } from '../parse/types.js'
import { renderSnippetText } from '../index/render.js'
import type { NewSnippet } from '../store/snippets.js'
import { countTokens } from '../text/tokens.js'

/** Where a snippet came from, as a link or `path#anchor`. */
export type SourceLocator = (path: string, anchor: string) => string

export function toNewSnippet(parsed: ParsedSnippet, source: string): NewSnippet {
  const base =
    parsed.kind === 'code'
      ? {
          kind: 'code' as const,
          title: parsed.title,
          description: parsed.description,
          breadcrumb: parsed.breadcrumb,
          pageTitle: parsed.pageTitle,
          language: parsed.codeList[0]?.language ?? 'text',
          body: JSON.stringify(parsed.codeList),
          source,
          ...(parsed.includes ? { includes: parsed.includes } : {}),
        }
      : {
          kind: 'info' as const,
          title: parsed.breadcrumb || parsed.pageTitle,
          description: '',
          breadcrumb: parsed.breadcrumb,
          pageTitle: parsed.pageTitle,
          language: '',
          body: parsed.content,
          source,
        }
  return completeSnippet(base)
}

/** Adds the token count and the de-duplication hash to a snippet's text fields. */
export function completeSnippet(base: Omit<NewSnippet, 'tokens' | 'hash'>): NewSnippet {
  // The same code or prose under another title is the same snippet: only the first is kept, so
  // answers never spend their token budget twice on one example.
  const normalised = base.body.replace(/\s+/g, ' ').trim().toLowerCase()
  const hash = createHash('sha256').update(`${base.kind}\0${normalised}`).digest('hex')
  // Field by field: V8 builds `{ ...base, tokens, hash }` in a form that outlives the young
  // generation, and staging an import of 130,000 snippets promoted 57 MB more garbage with it.
  const { kind, title, description, breadcrumb, pageTitle, language, body, source, includes, alsoAt } = base
  const snippet: NewSnippet = { kind, title, description, breadcrumb, pageTitle, language, body, source, tokens: countTokens(renderSnippetText(base)), hash }
  if (includes) snippet.includes = includes
  if (alsoAt) snippet.alsoAt = alsoAt
  return snippet
}

/** Words of a section that say it teaches how to use something, rather than listing it. */
const EXPLAINING_SECTION = /\b(example|examples|usage|use|using|tutorial|guide|how|getting started|quick ?start|walkthrough|recipe|cookbook)\b/i
/** Pages that list an API: the same example there is usually a bare stub. */
const REFERENCE_PAGE = /(^|\/)(api|reference|references|api-reference)(\/|$)/i

/**
 * How well an occurrence of repeated content explains it: the prose that introduces it, a
 * section about using it over a reference listing. Only comparisons between copies matter.
 */
function explanationScore(snippet: NewSnippet, path: string): number {
  const words = snippet.description.match(/\S+/g)?.length ?? 0
  let score = Math.min(words, 60)
  if (EXPLAINING_SECTION.test(`${snippet.breadcrumb} ${snippet.title}`)) score += 20
  if (REFERENCE_PAGE.test(path) && words === 0) score -= 20
  return score
}

/** A parsed snippet under the titles of the pages above its own (a Confluence page's ancestors). */
function underAncestors(parsed: ParsedSnippet, ancestors: string[] | undefined): ParsedSnippet {
  if (!ancestors?.length) return parsed
  return { ...parsed, breadcrumb: [...ancestors, parsed.breadcrumb].filter(Boolean).join(' > ') }
}

/**
 * Gathers the snippets of parsed documents, one document at a time (a job parses them on its
 * parse thread and gives way to requests between them). Identical content found on several
 * pages is kept once, in the occurrence that best explains it (the earliest on a tie); the
 * others are remembered in `alsoAt`.
 */
export class DocumentSnippets {
  private readonly byHash = new Map<string, { snippet: NewSnippet; score: number; others: string[] }>()

  constructor(private readonly locate: SourceLocator) {}

  /** Adds the snippets `parseDocument` found in `doc`. */
  add(doc: SourceDocument, snippets: readonly ParsedSnippet[]): void {
    for (const found of snippets) {
      const parsed = underAncestors(found, doc.ancestors)
      const snippet = toNewSnippet(parsed, this.locate(doc.path, parsed.anchor))
      const score = explanationScore(snippet, doc.path)
      const kept = this.byHash.get(snippet.hash)
      if (!kept) this.byHash.set(snippet.hash, { snippet, score, others: [] })
      else if (score > kept.score) this.byHash.set(snippet.hash, { snippet, score, others: [...kept.others, kept.snippet.source] })
      else kept.others.push(snippet.source)
    }
  }

  /** The snippets of the documents added so far, in the order they were first found. */
  snippets(): NewSnippet[] {
    return [...this.byHash.values()].map(({ snippet, others }) => {
      const alsoAt = [...new Set(others)].filter((source) => source !== snippet.source)
      return alsoAt.length > 0 ? { ...snippet, alsoAt } : snippet
    })
  }
}

/** The snippets of all these documents, parsed on this thread, without a budget (tests, benchmarks). */
export function snippetsOf(documents: SourceDocument[], locate: SourceLocator, context: ParseContext = {}): NewSnippet[] {
  const parsed = new DocumentSnippets(locate)
  for (const doc of documents) parsed.add(doc, parseDocument(doc, context))
  return parsed.snippets()
}
