/**
 * The two answer formats of /v2/context (ARCHITECTURE.md "Response formats"): Context7's
 * ContextResponse JSON, and the text blocks AI tools read, one per snippet.
 */
import type { StoredSnippet } from '../store/snippets.js'

export interface CodeExample {
  language: string
  code: string
}

/**
 * Beyond Context7's fields, every snippet says where it stands in Lectern's one ranking over
 * both arrays (`rank` 1 is best, with its fused `score`), so a client can rebuild the order the
 * `txt` answer shows; and, when there are any, the files its code was included from and the
 * other pages showing the same content.
 */
interface RankedJson {
  rank: number
  score: number
  includes?: string[]
  alsoAt?: string[]
}

export interface CodeSnippetJson extends RankedJson {
  codeTitle: string
  codeDescription: string
  codeLanguage: string
  codeTokens: number
  codeId: string
  pageTitle: string
  codeList: CodeExample[]
}

export interface InfoSnippetJson extends RankedJson {
  pageId: string
  breadcrumb: string
  content: string
  contentTokens: number
}

export interface ContextResponse {
  codeSnippets: CodeSnippetJson[]
  infoSnippets: InfoSnippetJson[]
  rules?: { libraryOwn: string[] }
}

export const TXT_SEPARATOR = `\n\n${'-'.repeat(32)}\n\n`

export const codeListOf = (snippet: Pick<StoredSnippet, 'body'>): CodeExample[] => JSON.parse(snippet.body) as CodeExample[]

/** Scores are shown rounded: clients compare them, they do not need the float's noise. */
const roundScore = (score: number) => Math.round(score * 1e6) / 1e6

export function renderJson(snippets: StoredSnippet[], rules: string[], scores: readonly number[] = []): ContextResponse {
  const response: ContextResponse = { codeSnippets: [], infoSnippets: [] }
  snippets.forEach((s, i) => {
    const ranked: RankedJson = {
      rank: i + 1,
      score: roundScore(scores[i] ?? 0),
      ...(s.includes?.length ? { includes: s.includes } : {}),
      ...(s.alsoAt?.length ? { alsoAt: s.alsoAt } : {}),
    }
    if (s.kind === 'code') {
      response.codeSnippets.push({
        codeTitle: s.title,
        codeDescription: s.description,
        codeLanguage: s.language,
        codeTokens: s.tokens,
        codeId: s.source,
        pageTitle: s.pageTitle,
        codeList: codeListOf(s),
        ...ranked,
      })
    } else {
      response.infoSnippets.push({ pageId: s.source, breadcrumb: s.breadcrumb, content: s.body, contentTokens: s.tokens, ...ranked })
    }
  })
  if (rules.length > 0) response.rules = { libraryOwn: rules }
  return response
}

/** One snippet as a text block; its token count is what ingest stores as the snippet's tokens. */
export function renderSnippetText(s: Pick<StoredSnippet, 'kind' | 'title' | 'description' | 'breadcrumb' | 'source' | 'body'>): string {
  if (s.kind === 'info') {
    return [`### ${s.breadcrumb || s.title}`, `Source: ${s.source}`, s.body].join('\n\n')
  }
  const blocks = codeListOf(s).map((c) => `\`\`\`${c.language}\n${c.code}\n\`\`\``)
  return [`### ${s.title}`, `Source: ${s.source}`, ...(s.description ? [s.description] : []), ...blocks].join('\n\n')
}

export function renderText(snippets: StoredSnippet[], rules: string[]): string {
  const blocks = snippets.map(renderSnippetText)
  if (rules.length > 0) blocks.unshift(`### Rules from the library owner\n\n${rules.map((r) => `- ${r}`).join('\n')}`)
  return blocks.join(TXT_SEPARATOR)
}
