/**
 * From a JSON context answer to the ranked snippets the metrics read: in Lectern's own order
 * (`rank`), each standing for the repository files it came from. Snippet sources are links to
 * the file on the git host (`.../blob/<ref>/<path>#anchor`, GitLab's `/-/blob/`, Bitbucket's
 * `/src/`), `path#anchor`, or a page URL for web sources (kept whole, without its anchor).
 */
import type { CodeSnippetJson, ContextResponse, InfoSnippetJson } from '../index/render.js'
import type { RankedSnippet } from './metrics.js'

export function sourceFile(source: string): string {
  const withoutAnchor = source.replace(/[#?].*$/, '')
  const blob = /\/(?:-\/)?(?:blob|src)\/[^/]+\/(.+)$/.exec(withoutAnchor)
  if (blob && /^https?:\/\//.test(withoutAnchor)) return blob[1].split('/').map(decodeURIComponent).join('/')
  return withoutAnchor
}

function filesOf(source: string, includes: string[] = [], alsoAt: string[] = []): string[] {
  return [...new Set([sourceFile(source), ...includes, ...alsoAt.map(sourceFile)])]
}

export function rankedSnippets(answer: ContextResponse): RankedSnippet[] {
  const code = answer.codeSnippets.map((s: CodeSnippetJson, i) => ({
    rank: s.rank ?? i + 1,
    snippet: { kind: 'code' as const, files: filesOf(s.codeId, s.includes, s.alsoAt), code: s.codeList.map((c) => c.code).join('\n') },
  }))
  const info = answer.infoSnippets.map((s: InfoSnippetJson, i) => ({
    rank: s.rank ?? answer.codeSnippets.length + i + 1,
    snippet: { kind: 'info' as const, files: filesOf(s.pageId, s.includes, s.alsoAt) },
  }))
  return [...code, ...info].sort((a, b) => a.rank - b.rank).map((r) => r.snippet)
}
