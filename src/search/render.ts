/**
 * The two answer formats of /v2/context (ARCHITECTURE.md "Response formats"): Context7's
 * ContextResponse JSON, and the text blocks AI tools read, one per snippet.
 */
import type { StoredSnippet } from '../store/snippets.js'

export interface CodeExample {
  language: string
  code: string
}

export interface CodeSnippetJson {
  codeTitle: string
  codeDescription: string
  codeLanguage: string
  codeTokens: number
  codeId: string
  pageTitle: string
  codeList: CodeExample[]
}

export interface InfoSnippetJson {
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

export function renderJson(snippets: StoredSnippet[], rules: string[]): ContextResponse {
  const response: ContextResponse = { codeSnippets: [], infoSnippets: [] }
  for (const s of snippets) {
    if (s.kind === 'code') {
      response.codeSnippets.push({
        codeTitle: s.title,
        codeDescription: s.description,
        codeLanguage: s.language,
        codeTokens: s.tokens,
        codeId: s.source,
        pageTitle: s.pageTitle,
        codeList: codeListOf(s),
      })
    } else {
      response.infoSnippets.push({ pageId: s.source, breadcrumb: s.breadcrumb, content: s.body, contentTokens: s.tokens })
    }
  }
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
