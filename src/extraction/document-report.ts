/**
 * What one document gave, checked against its own text on the parse thread: the outcome of its
 * include directives, titles that kept markup, links to anchors the page does not define, code
 * without a language, and whether a page with text gave nothing at all. The checks read the
 * source independently of the parser, so a parser mistake shows up instead of agreeing with itself.
 */
import { anchorStyleOf, sluggerFor } from '../parse/anchors.js'
import { isMarkdownFile } from '../parse/includes.js'
import { normalizeDialects } from '../parse/markdown-dialects.js'
import { renderedText } from '../parse/markdown-it.js'
import { renderTemplates } from '../parse/markdown-templates.js'
import type { AnchorStyle, DocumentReport, IncludeOutcome, ParseContext, ParsedSnippet, SourceDocument } from '../parse/types.js'

/**
 * A paragraph this long says something a snippet should carry: clear of the parser's smallest
 * info snippet (15 words), so a sentence that just misses it is not reported.
 */
const MIN_PROSE_WORDS = 20
/** Lines that are no prose: MDC inline components, headings and underlines, attributes and directives (AsciiDoc, reStructuredText), link definitions. */
const NOT_PROSE_LINE = /^\s*(?::[\w-]+[{[]|#{1,6}\s|={1,6}\s|[=\-~^*+#]{3,}\s*$|:[\w-]+!?:|\.\.\s|(?:ifn?def|ifeval|endif|include|toc)::|\[[^\]]*\]:?\s|\[[^\]]*\]\s*$)/

/**
 * Markup a title should not show: directive and attribute braces (`{#id}`, `{{< >}}`,
 * `{% %}`, `{: .class}`), HTML/JSX tags (a closing tag, attributes, a self-closing element),
 * emphasis markers, character entities, backslash escapes, admonition and include markers, and
 * Sphinx roles. Code in a title (`Array<T>`, `{...props}`, `__init__`) is not markup.
 */
const MARKUP_RESIDUE = [
  /\{\s*[#:%*</]|[%>/]\s*\}|\{\{|\}\}|\{\/\*|\*\/\}|\{\s*\.[\w-]+/,
  /<\/[A-Za-z][\w.-]*\s*>|<[A-Za-z][\w.-]*\s+[\w:-]+=|<[A-Za-z][\w.-]*\s*\/>|<(?:br|code|span|a|img|div|p|em|strong|kbd|sup|sub|b|i|small)>/,
  /\*\*\S|(?:^|\s)\*[^*\s][^*]*\*(?:\s|$)|(?:^|\s)__[^_]+\s[^_]+__(?:\s|$)/,
  /&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);/,
  /\\[*_<>#[\]{}`]/,
  /^\s*(?::::|!!!|\?\?\?|===|--8<--)|:[a-z]+:`/,
]

/** Longer titles are checked on their start: some patterns backtrack, and no real title is longer. */
const MAX_TITLE_CHECKED = 300

export function hasMarkupResidue(title: string): boolean {
  return markupIn(title) !== undefined
}

/** The first piece of markup a title shows, if any. */
function markupIn(title: string): string | undefined {
  const start = title.slice(0, MAX_TITLE_CHECKED)
  for (const pattern of MARKUP_RESIDUE) {
    const match = pattern.exec(start)
    if (match) return match[0].trim()
  }
  return undefined
}

/** Whether the page's front matter declares this very title (Svelte's `title: {#if ...}`): the author's words, not leftover markup. */
function declaredTitle(text: string, title: string): boolean {
  const front = /^(---|\+\+\+)\n([\s\S]*?)\n\1/.exec(text)?.[2]
  return front !== undefined && front.split('\n').some((line) => /^title\s*[:=]/.test(line) && line.includes(title))
}

/** Whether the page writes `piece` as code (`` `<div>` ``, `` `**kwargs` ``): then the title shows it as its author meant. */
function writtenAsCode(text: string, piece: string): boolean {
  const escaped = piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`\`[^\`\\n]*${escaped}[^\`\\n]*\``).test(text)
}

/**
 * Checks a document's snippets against its text; `includes` is what its include directives came
 * to, `notRendered` the template tags only the site's build renders.
 */
export function inspectDocument(
  doc: SourceDocument,
  snippets: readonly ParsedSnippet[],
  includes: IncludeOutcome[],
  context: ParseContext,
  notRendered: DocumentReport['notRendered'] = [],
): DocumentReport {
  const titles = new Map<string, string>()
  let codeWithoutLanguage = 0
  for (const snippet of snippets) {
    const headings = snippet.breadcrumb.split(' > ')
    for (const title of snippet.kind === 'code' ? [snippet.title, ...headings] : headings) {
      if (title === '' || titles.has(title)) continue
      const markup = markupIn(title)
      if (markup !== undefined && !writtenAsCode(doc.text, markup) && !declaredTitle(doc.text, title)) titles.set(title, snippet.anchor)
    }
    if (snippet.kind === 'code') codeWithoutLanguage += snippet.codeList.filter((alternative) => alternative.language === 'text').length
  }
  // Markdown pages, by their site's slug rules; a Sphinx site's pages and reStructuredText (docutils ids) are not checked here.
  const style = anchorStyleOf(doc.path, context)
  const checked = isMarkdownFile(doc.path) && style !== 'docutils'
  const defined = checked ? definedAnchors([doc.text, ...includedMarkdown(includes, context)], style, context.templates !== undefined && !doc.path.endsWith('.mdx')) : undefined
  const undefinedAnchors = new Map<string, string>()
  if (defined) {
    for (const snippet of snippets) {
      if (snippet.anchor !== '' && !defined.has(snippet.anchor) && !undefinedAnchors.has(snippet.anchor)) {
        undefinedAnchors.set(snippet.anchor, snippet.breadcrumb.split(' > ').at(-1) ?? '')
      }
    }
  }
  return {
    includes,
    // A page whose text is template tags only the build renders (autodoc's) is explained under notRendered.
    textWithoutSnippet: snippets.length === 0 && notRendered.length === 0 && hasProse(doc.text),
    titlesWithMarkup: [...titles].map(([title, anchor]) => ({ title, anchor })),
    undefinedAnchors: [...undefinedAnchors].map(([anchor, title]) => ({ anchor, title })),
    codeWithoutLanguage,
    notRendered,
  }
}

/** The Markdown files a page included: their headings are the rendered page's too. */
function includedMarkdown(includes: readonly IncludeOutcome[], context: ParseContext): string[] {
  const files = new Set(includes.flatMap((outcome) => (outcome.resolved !== undefined && outcome.problem === undefined && isMarkdownFile(outcome.resolved) ? [outcome.resolved] : [])))
  return [...files].flatMap((file) => {
    const text = context.includes?.readFile(file)
    return typeof text === 'string' ? [text] : []
  })
}

/**
 * Whether a page has a paragraph of prose: one of MIN_PROSE_WORDS words or more, outside its front
 * matter, comments, tags and directives. A stub that says where a section moved, a table of
 * contents or an index of links has none, and rightly gives no snippet.
 */
function hasProse(text: string): boolean {
  const body = withoutComments(text.replace(/^(---|\+\+\+)\n[\s\S]*?\n\1\n/, ''))
  return body.split(/\n[ \t]*\n/).some((paragraph) => {
    if (/^\s*(\.\.\s|<|\{[%{<])/.test(paragraph)) return false
    const prose = paragraph
      .split('\n')
      .filter((line) => !NOT_PROSE_LINE.test(line))
      .join(' ')
    // Every pattern here is linear: a tag or link target ends at the next bracket of either kind.
    const words = prose.replace(/<[^<>]*>/g, ' ').replace(/\]\([^()]*\)/g, ']').match(/\p{L}+/gu)
    return (words?.length ?? 0) >= MIN_PROSE_WORDS
  })
}

/** The text without its HTML comments, in one pass (a regex would rescan after each unclosed `<!--`). */
function withoutComments(text: string): string {
  let out = ''
  let at = 0
  for (let open = text.indexOf('<!--'); open !== -1; open = text.indexOf('<!--', at)) {
    const close = text.indexOf('-->', open + 4)
    if (close === -1) break
    out += text.slice(at, open)
    at = close + 3
  }
  return out + text.slice(at)
}

const MAX_HEADING_LINE = 1000
const FENCE = /^\s*(`{3,}|~{3,})/
const ATX = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/
/** Explicit heading ids in every syntax the generators use: `{#id}`, `{: #id}`, `{ #id .x }` and MDX's comment id. */
const EXPLICIT_ID = /\{\s*:?\s*#([\w-]+)[^}]*\}\s*$|\{\/\*\s*([\w-]+)\s*\*\/\}\s*$/
/** kramdown's attribute list with an id, on a line of its own (under a heading). */
const NEXT_LINE_ID = /^ {0,3}\{:[^}#]*#([\w-]+)(?![\w-])[^}]*\}[ \t]*$/
/** Anchors written as HTML: `<a id="x">`, `<a name="x">`, any element's `id="x"`. */
const HTML_ID = /<[A-Za-z][^>]*?\s(?:id|name)=["']([^"']+)["']/g

/**
 * The anchors a Markdown page defines, read from its source as its generator names them
 * (`style`): each heading's explicit id, else the slug of its text with the markup taken out; and
 * the ids of HTML elements. `templates`: the site renders Hugo or Jekyll tags first.
 */
export function definedAnchors(texts: readonly string[], style: AnchorStyle = 'github', templates = false): Set<string> {
  const slug = sluggerFor(style)
  const anchors = new Set<string>()
  for (const text of texts) {
    // Template tags, tabs and admonitions as the generators render them: a tab's indented content is the page's.
    const normal = text.replace(/\r\n?/g, '\n')
    const lines = normalizeDialects(templates ? renderTemplates(normal) : normal).split('\n')
    let fence: string | undefined
    for (const [i, raw] of lines.entries()) {
      // A line this long is no heading, and some of the patterns below would backtrack on it.
      if (raw.length > MAX_HEADING_LINE) continue
      const line = raw.replace(BLOCK_QUOTE, '')
      const marker = FENCE.exec(line)?.[1]
      if (fence !== undefined) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined
        continue
      }
      if (marker !== undefined) {
        fence = marker
        continue
      }
      for (const match of line.matchAll(HTML_ID)) anchors.add(match[1])
      const previous = i > 0 ? lines[i - 1].replace(BLOCK_QUOTE, '') : undefined
      const heading = ATX.exec(line)?.[1] ?? (/^ {0,3}(=+|-+)\s*$/.test(line) && isSetextText(previous) ? previous!.trim() : undefined)
      if (heading === undefined) continue
      // kramdown's attribute list may stand on the line under the heading.
      const explicit = EXPLICIT_ID.exec(heading) ?? (ATX.test(line) ? NEXT_LINE_ID.exec(lines[i + 1] ?? '') : null)
      if (explicit) anchors.add(explicit[1] ?? explicit[2])
      else anchors.add(slug(renderedText(heading).replace(/\s+/g, ' ').trim()))
    }
  }
  return anchors
}

/** `> ` markers of block quotes (and admonitions rewritten as quotes): a heading inside one is still a heading. */
const BLOCK_QUOTE = /^(?:[ \t]{0,3}>[ \t]?)+/

/** A line a `===` or `---` underline makes a heading: text, not a list item, table row, or another marker. */
const isSetextText = (line: string | undefined): boolean => line !== undefined && line.trim() !== '' && !/^\s*([-*+>|#]|\d+\.|`{3}|~{3}|<)/.test(line)
