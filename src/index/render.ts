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

/**
 * One snippet, ready to answer with, as a request gets it from its loaded set
 * (src/index/set-snippets.ts). Its text is UTF-8 in a buffer shared by its set, outside the
 * JavaScript heap, so loaded libraries neither weigh on the garbage collector nor count against
 * V8's heap cap.
 */
export interface RenderedSnippet {
  readonly pk: number
  /** Its position in its loaded set: its document number in the set's lexical index. */
  readonly doc: number
  readonly kind: StoredSnippet['kind']
  readonly title: string
  readonly tokens: number
  /** The snippet's block of the `txt` answer. */
  readonly txt: Buffer
  /** Its object of the JSON answer, as JSON text without the closing brace (rank and score follow). */
  readonly json: Buffer
}

/** A snippet's object of the JSON answer without `rank` and `score`, as JSON text without its closing brace. */
export function renderSnippetJson(s: Pick<StoredSnippet, 'kind' | 'title' | 'description' | 'language' | 'tokens' | 'source' | 'pageTitle' | 'breadcrumb' | 'body' | 'includes' | 'alsoAt'>): string {
  const where = {
    ...(s.includes?.length ? { includes: s.includes } : {}),
    ...(s.alsoAt?.length ? { alsoAt: s.alsoAt } : {}),
  }
  const object =
    s.kind === 'code'
      ? {
          codeTitle: s.title,
          codeDescription: s.description,
          codeLanguage: s.language,
          codeTokens: s.tokens,
          codeId: s.source,
          pageTitle: s.pageTitle,
          codeList: codeListOf(s),
          ...where,
        }
      : { pageId: s.source, breadcrumb: s.breadcrumb, content: s.body, contentTokens: s.tokens, ...where }
  return JSON.stringify(object).slice(0, -1)
}

const SEPARATOR = Buffer.from(TXT_SEPARATOR)
const COMMA = Buffer.from(',')

/** The JSON answer, assembled from each snippet's precomputed JSON: nothing is serialized twice. */
export function renderJsonBuffer(snippets: readonly RenderedSnippet[], rules: readonly string[], scores: readonly number[] = []): Buffer {
  const code: Buffer[] = []
  const info: Buffer[] = []
  snippets.forEach((s, i) => {
    const list = s.kind === 'code' ? code : info
    if (list.length > 0) list.push(COMMA)
    list.push(s.json, Buffer.from(`,"rank":${i + 1},"score":${JSON.stringify(roundScore(scores[i] ?? 0))}}`))
  })
  const own = rules.length > 0 ? `,"rules":${JSON.stringify({ libraryOwn: rules })}` : ''
  return Buffer.concat([Buffer.from('{"codeSnippets":['), ...code, Buffer.from('],"infoSnippets":['), ...info, Buffer.from(`]${own}}`)])
}

/** The JSON answer as an object, for callers that read it rather than send it (the CLI, the evaluation). */
export function renderJson(snippets: readonly RenderedSnippet[], rules: readonly string[], scores: readonly number[] = []): ContextResponse {
  return JSON.parse(renderJsonBuffer(snippets, rules, scores).toString('utf8')) as ContextResponse
}

/** One snippet as a text block; its token count is what ingest stores as the snippet's tokens. */
export function renderSnippetText(s: Pick<StoredSnippet, 'kind' | 'title' | 'description' | 'breadcrumb' | 'source' | 'body'>): string {
  if (s.kind === 'info') {
    return [`### ${s.breadcrumb || s.title}`, `Source: ${s.source}`, s.body].join('\n\n')
  }
  const blocks = codeListOf(s).map((c) => `\`\`\`${c.language}\n${c.code}\n\`\`\``)
  return [`### ${s.title}`, `Source: ${s.source}`, ...(s.description ? [s.description] : []), ...blocks].join('\n\n')
}

/** The `txt` answer: the owner's rules, then each snippet's block, best first. */
export function renderTextBuffer(snippets: readonly RenderedSnippet[], rules: readonly string[]): Buffer {
  const parts: Buffer[] = []
  if (rules.length > 0) parts.push(Buffer.from(`### Rules from the library owner\n\n${rules.map((r) => `- ${r}`).join('\n')}`))
  for (const s of snippets) {
    if (parts.length > 0) parts.push(SEPARATOR)
    parts.push(s.txt)
  }
  return Buffer.concat(parts)
}

export function renderText(snippets: readonly RenderedSnippet[], rules: readonly string[]): string {
  return renderTextBuffer(snippets, rules).toString('utf8')
}
