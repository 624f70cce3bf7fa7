/**
 * AsciiDoc reader (Asciidoctor and Antora sites): sections, source and listing blocks with their
 * `.Title`, admonitions, paragraphs, lists and tables, flattened into the blocks every reader
 * shares (blocks.ts). Includes are expanded first, as Asciidoctor's preprocessor does:
 * `include::path[tag=x,lines=1..5]`, relative to the page, and Antora's resource IDs
 * (`example$file`, `partial$file`) from the page's module. Headings take their `[[id]]` or
 * `[#id]` anchor, else Asciidoctor's own section id (`_getting_started`, or as the page's
 * `:idprefix:` and `:idseparator:` say).
 */
import path from 'node:path/posix'
import { assembleSnippets, normalizeLanguage, type Block } from './blocks.js'
import {
  MAX_INCLUDE_DEPTH,
  includeCandidates,
  mentionsInclude,
  languageOfFile,
  readInclude,
  selectLines,
  selectRegion,
  stripRegionMarkers,
  type DirectiveAt,
  type Selected,
} from './includes.js'
import type { ParseContext, ParsedSnippet, SourceDocument } from './types.js'
import { append } from '../text/arrays.js'

export function parseAsciidoc(doc: SourceDocument, context: ParseContext = {}): ParsedSnippet[] {
  const lines = doc.text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n')
  const expanded = context.includes ? expandIncludes(doc.path, lines, context, 0) : lines
  const reader = new AsciidocReader(attributesOf(expanded))
  const blocks = reader.read(expanded)
  return assembleSnippets(blocks, { path: doc.path, ...(reader.title ? { declaredTitle: reader.title } : {}) })
}

const INCLUDE = /^include::([^[\s][^[]*)\[([^\]]*)\]\s*$/
/** A line the include expansion puts before a file's lines inside a listing block, naming the file. */
const INCLUDED_MARK = '\u0000lectern-include:'

/** Asciidoctor's include preprocessor: the included lines take the directive's place. */
function expandIncludes(page: string, lines: string[], context: ParseContext, depth: number): string[] {
  const attributes = attributesOf(lines)
  const out: string[] = []
  let listing: string | undefined
  for (const [i, line] of lines.entries()) {
    const match = INCLUDE.exec(line)
    if (!match) {
      const delimiter = /^(-{4,}|\.{4,})\s*$/.exec(line)?.[1]
      if (delimiter !== undefined) listing = listing === undefined ? delimiter : listing === delimiter ? undefined : listing
      out.push(line)
      continue
    }
    const target = substitute(match[1], attributes)
    const at: DirectiveAt = { page, line: i + 1 }
    const found = readInclude(context.includes!, at, match[1], candidates(page, target, context.siteRoots), (text, file) => selection(text, file, match[2]))
    if (!found) continue
    const included = found.text.split('\n')
    if (listing !== undefined || !/\.(adoc|asciidoc)$/i.test(found.path)) {
      // In a listing block the file is code: the block records where it came from.
      out.push(`${INCLUDED_MARK}${found.path}`)
      append(out, included)
      continue
    }
    if (depth + 1 >= MAX_INCLUDE_DEPTH) {
      if (mentionsInclude(found.text)) context.includes!.record({ page: found.path, line: 0, reference: found.path, resolved: found.path, problem: `includes nest deeper than ${MAX_INCLUDE_DEPTH}; the ones in this file are not expanded` })
      append(out, included)
      continue
    }
    append(out, expandIncludes(found.path, included, context, depth + 1))
  }
  return out
}

/** Antora's family directories: `example$x` is `modules/<module>/examples/x`. */
const ANTORA_FAMILIES: Record<string, string> = { example: 'examples', partial: 'partials', page: 'pages', image: 'images', attachment: 'attachments' }

/**
 * Where an include target may be: an Antora resource ID in the page's component (`example$a.java`,
 * `other-module:partial$b.adoc`), else a path as every include syntax resolves it.
 */
function candidates(page: string, target: string, siteRoots: readonly string[] = []): string[] {
  const resource = /^(?:([\w.-]+):)?(example|partial|page|image|attachment)\$(.+)$/.exec(target)
  const modules = /^((?:.*\/)?modules\/)([^/]+)\//.exec(page)
  if (!resource) return includeCandidates(page, target, siteRoots)
  if (!modules) return []
  const [, module, family, file] = resource
  const folder = `${modules[1]}${module ?? modules[2]}/${ANTORA_FAMILIES[family]}`
  return includeCandidates(`${folder}/x`, file, [])
}

/** `tag=x`, `tags=a;b`, `lines=1..5;9` (or with commas in quotes); the whole file without either. */
function selection(text: string, file: string, attributeList: string): Selected {
  const options = new Map([...attributeList.matchAll(/(\w+)=("[^"]*"|[^,]*)/g)].map((m) => [m[1], m[2].replace(/^"|"$/g, '')]))
  const lines = options.get('lines')
  if (lines) return selectLines(text, lines.replace(/;/g, ',').replace(/\.\./g, '-').replace(/-(-1)?$/, '-'))
  const tags = (options.get('tags') ?? options.get('tag'))?.split(/[;,]/).map((t) => t.trim()).filter((t) => t !== '' && !t.startsWith('!') && t !== '*' && t !== '**')
  if (!tags || tags.length === 0) return stripRegionMarkers(text)
  const parts: string[] = []
  for (const tag of tags) {
    const part = selectRegion(text, tag)
    if (part === undefined) return { problem: `no tag "${tag}" in ${file}` }
    parts.push(part)
  }
  return parts.join('\n')
}

/** Document attributes (`:name: value`) anywhere in the text, later ones winning. */
function attributesOf(lines: readonly string[]): Map<string, string> {
  const attributes = new Map<string, string>()
  for (const line of lines) {
    const match = /^:([\w-]+)!?:\s*(.*)$/.exec(line)
    if (match) attributes.set(match[1], match[2].trim())
  }
  return attributes
}

/** `{name}` references to attributes the page defines; unknown ones stay as written, as Asciidoctor leaves them. */
const substitute = (text: string, attributes: Map<string, string>): string => text.replace(/\{([\w-]+)\}/g, (whole, name: string) => attributes.get(name) ?? whole)

const SECTION = /^(={1,6}|#{1,6})[ \t]+(\S.*)$/
const BLOCK_ANCHOR = /^\[(?:\[([\w:.-]+)(?:,[^\]]*)?\]|#([\w:.-]+)[^\]]*)\]\s*$/
const BLOCK_ATTRIBUTES = /^\[([^\]]*)\]\s*$/
const BLOCK_TITLE = /^\.([^\s.].*)$/
const ADMONITION_PARAGRAPH = /^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):\s+(.*)$/
const ADMONITIONS = new Set(['NOTE', 'TIP', 'IMPORTANT', 'WARNING', 'CAUTION'])
/** Delimited blocks: listing `----`, literal `....`, example `====`, sidebar `****`, quote `____`, open `--`, passthrough `++++`, table `|===`, comment `////`. */
const DELIMITER = /^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|\/{4,}|--|\|===+)\s*$/
const LIST_ITEM = /^\s*(\*{1,5}|\.{1,5}|-|\d+\.)\s+(.*)$/
const DIRECTIVE_LINE = /^(ifdef|ifndef|ifeval|endif)::.*\[.*\]\s*$|^toc::\[\]\s*$/

/** The longest text whose inline markup is converted. */
const MAX_INLINE_TEXT = 20_000

/** Blocks nest a few levels deep in real docs; deeper content is kept as prose, so the reader never recurses as deep as its input. */
const MAX_NESTING = 16

interface Pending {
  anchor?: string
  title?: string
  attributes?: string
}

/** Reads the lines once, keeping the block attributes, anchor and title that apply to the next block. */
class AsciidocReader {
  title: string | undefined
  private readonly ids = new Set<string>()
  /** How many delimited blocks enclose the lines being read. */
  private nesting = 0
  private readonly prefix: string
  private readonly separator: string

  constructor(private readonly attributes: Map<string, string>) {
    this.prefix = attributes.get('idprefix') ?? '_'
    this.separator = attributes.get('idseparator') ?? '_'
  }

  read(lines: string[]): Block[] {
    const blocks: Block[] = []
    let pending: Pending = {}
    let i = 0
    while (i < lines.length) {
      const line = lines[i]
      if (line.trim() === '' || /^\/\/(?!\/)/.test(line) || DIRECTIVE_LINE.test(line) || /^:[\w-]+!?:/.test(line)) {
        i++
        continue
      }
      const anchor = BLOCK_ANCHOR.exec(line)
      if (anchor) {
        pending.anchor = anchor[1] ?? anchor[2]
        i++
        continue
      }
      const attributes = BLOCK_ATTRIBUTES.exec(line)
      if (attributes) {
        const [first] = attributes[1].split(',')
        const id = /#([\w:.-]+)/.exec(first)?.[1]
        if (id) pending.anchor = id
        pending.attributes = attributes[1]
        i++
        continue
      }
      const title = BLOCK_TITLE.exec(line)
      if (title && !LIST_ITEM.test(line)) {
        pending.title = this.inline(title[1], 'plain')
        i++
        continue
      }
      const section = SECTION.exec(line)
      if (section) {
        const depth = section[1].length
        const text = this.inline(section[2].trimEnd(), 'plain')
        // The document title is the page's header, not a section: it has no anchor of its own.
        const doctitle = depth === 1 && this.title === undefined && blocks.length === 0
        if (doctitle) this.title = text
        blocks.push({ kind: 'heading', depth, text, id: doctitle ? (pending.anchor ?? '') : this.sectionId(text, pending.anchor) })
        pending = {}
        i++
        continue
      }
      const delimiter = DELIMITER.exec(line)
      if (delimiter) {
        const end = closing(lines, i, delimiter[1])
        append(blocks, this.delimited(delimiter[1], lines.slice(i + 1, end), pending))
        pending = {}
        i = Math.min(end + 1, lines.length)
        continue
      }
      let end = i
      while (end < lines.length && lines[end].trim() !== '' && (end === i || !(DELIMITER.test(lines[end]) || SECTION.test(lines[end]) || BLOCK_ATTRIBUTES.test(lines[end])))) end++
      append(blocks, this.paragraph(lines.slice(i, end), pending))
      pending = {}
      i = end
    }
    return blocks
  }

  /** Asciidoctor's auto id: the prefix, then the title in lower case with runs of other characters as the separator; `_2` for a repeat. */
  private sectionId(text: string, explicit: string | undefined): string {
    if (explicit) {
      this.ids.add(explicit)
      return explicit
    }
    const words = text
      .toLowerCase()
      .replace(/<[^<>]*>|&\w+;/g, '')
      .replace(/[^\p{L}\p{N}_]+/gu, this.separator)
    // An empty `:idseparator:` joins the words: there is no separator to trim.
    const trimmed = this.separator === '' ? words : words.replace(new RegExp(`^(?:${escape(this.separator)})+|(?:${escape(this.separator)})+$`, 'g'), '')
    const base = `${this.prefix}${trimmed}`
    let id = base
    for (let n = 2; this.ids.has(id); n++) id = `${base}${this.separator || '_'}${n}`
    this.ids.add(id)
    return id
  }

  private delimited(delimiter: string, body: string[], pending: Pending): Block[] {
    const style = (pending.attributes ?? '').split(',')[0].trim().replace(/^#[\w:.-]+/, '')
    const kind = delimiter[0]
    if (kind === '/' || kind === '+') return []
    if ((kind === '-' && delimiter.length >= 4) || kind === '.') {
      const source = /^(source|listing)?$/.test(style) || style === ''
      const language = source ? (pending.attributes ?? '').split(',')[1]?.trim() : undefined
      const includes = body.filter((l) => l.startsWith(INCLUDED_MARK)).map((l) => l.slice(INCLUDED_MARK.length))
      const code = body.filter((l) => !l.startsWith(INCLUDED_MARK)).join('\n')
      if (code.trim() === '') return []
      const named = language ? normalizeLanguage(substitute(language, this.attributes)) : undefined
      const lang = named ?? (includes.length > 0 ? languageOfFile(includes[0]) : 'text')
      return [{ kind: 'code', language: lang, code: stripCallouts(code), ...(pending.title ? { title: pending.title } : {}), ...(includes.length > 0 ? { includes } : {}) }]
    }
    if (kind === '|') {
      const text = body.filter((l) => l.trim() !== '').map((l) => l.trim()).join('\n')
      return text === '' ? [] : [{ kind: 'prose', markdown: this.inline(text, 'markdown'), plain: this.inline(text, 'plain'), intro: false }]
    }
    // Example, sidebar, quote and open blocks hold blocks of their own; an admonition block labels its first paragraph.
    if (this.nesting >= MAX_NESTING) {
      const text = body.join('\n')
      return [{ kind: 'prose', markdown: text, plain: text, intro: false }]
    }
    this.nesting++
    let inner: Block[]
    try {
      inner = this.read(body)
    } finally {
      this.nesting--
    }
    const label = ADMONITIONS.has(style) ? `${style[0]}${style.slice(1).toLowerCase()}` : pending.title && kind !== '-' ? pending.title : undefined
    if (!label) return inner
    const first = inner.findIndex((block) => block.kind === 'prose')
    if (first === -1) return inner
    const head = inner[first] as Extract<Block, { kind: 'prose' }>
    inner[first] = { ...head, markdown: `${label}: ${head.markdown}`, plain: `${label}: ${head.plain}`, intro: false }
    return inner
  }

  private paragraph(lines: string[], pending: Pending): Block[] {
    const text = lines.join('\n')
    const admonition = ADMONITION_PARAGRAPH.exec(lines[0])
    const style = (pending.attributes ?? '').split(',')[0].trim()
    if (style === 'source' || style === 'listing') {
      const language = (pending.attributes ?? '').split(',')[1]?.trim()
      return [{ kind: 'code', language: normalizeLanguage(language), code: stripCallouts(text), ...(pending.title ? { title: pending.title } : {}) }]
    }
    // An indented paragraph is a literal block.
    if (/^\s/.test(lines[0])) return [{ kind: 'code', language: 'text', code: dedentAll(lines).join('\n') }]
    const label = admonition ? `${admonition[1][0]}${admonition[1].slice(1).toLowerCase()}: ` : ADMONITIONS.has(style) ? `${style[0]}${style.slice(1).toLowerCase()}: ` : ''
    const body = admonition ? [admonition[2], ...lines.slice(1)].join('\n') : text
    const list = LIST_ITEM.test(lines[0])
    const markdown = list ? lines.map((l) => l.replace(LIST_ITEM, (_m, marker: string, rest: string) => `${/^\d|^\./.test(marker) ? '1.' : '-'} ${rest}`)).join('\n') : body
    return [{ kind: 'prose', markdown: label + this.inline(markdown, 'markdown'), plain: label + this.inline(body.replace(/\s*\n\s*/g, ' '), 'plain'), intro: label === '' }]
  }

  /** Inline markup as Markdown or plain text: emphasis, monospace, links, cross references, attribute references. */
  private inline(text: string, mode: 'markdown' | 'plain'): string {
    // Some of these patterns backtrack on a huge paragraph of brackets; no real paragraph is this long.
    if (text.length > MAX_INLINE_TEXT) return substitute(text, this.attributes)
    const linked = (label: string, url: string) => (mode === 'markdown' ? `[${label || url}](${url})` : label || url)
    return substitute(text, this.attributes)
      .replace(/<<([^,>]+),\s*([^>]+)>>/g, '$2')
      .replace(/<<([^>]+)>>/g, (_m, id: string) => id.replace(/^_/, '').replace(/[_-]/g, ' '))
      .replace(/\bxref:([^[\s]+)\[([^\]]*)\]/g, (_m, target: string, label: string) => label || path.basename(target).replace(/\.adoc.*$/, ''))
      .replace(/\blink:([^[\s]+)\[([^\]]*)\]/g, (_m, url: string, label: string) => linked(label.replace(/\^$/, ''), url))
      .replace(/\b(https?:\/\/[^\s[]+)\[([^\]]*)\]/g, (_m, url: string, label: string) => linked(label.replace(/\^$/, ''), url))
      .replace(/\b(?:kbd|btn|menu):\[([^\]]*)\]/g, '$1')
      .replace(/\b(?:footnote|indexterm2?):\[([^\]]*)\]/g, '')
      .replace(/(^|[^\w*])\*([^*\n]+)\*(?=[^\w*]|$)/g, mode === 'markdown' ? '$1**$2**' : '$1$2')
      .replace(/(^|[^\w_])_([^_\n]+)_(?=[^\w_]|$)/g, mode === 'markdown' ? '$1*$2*' : '$1$2')
      .replace(/`\+([^`]*)\+`/g, mode === 'markdown' ? '`$1`' : '$1')
      .replace(/`([^`]*)`/g, mode === 'markdown' ? '`$1`' : '$1')
      .replace(/[ \t]+\+$/gm, '')
  }
}

/** Where a delimited block opened at `start` closes: the next line of the same delimiter, else the end. */
function closing(lines: string[], start: number, delimiter: string): number {
  for (let i = start + 1; i < lines.length; i++) if (lines[i].trimEnd() === delimiter) return i
  return lines.length
}

/** Callout markers at the ends of code lines (`<1>`, `// <2>`, `# <3>`) are references to the text below, not code. */
function stripCallouts(code: string): string {
  return code
    .split('\n')
    .map((line) => (line.length <= 1000 && /<!?-*\d/.test(line) ? line.replace(/[ \t]*(?:\/\/|#|--|;)?[ \t]*(?:<\d+>|<!--\d+-->)(?:[ \t]*<\d+>)*[ \t]*$/, '') : line))
    .join('\n')
}

function dedentAll(lines: string[]): string[] {
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^\s*/.exec(l)![0].length))
  return lines.map((l) => l.slice(indent))
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
