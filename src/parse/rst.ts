/**
 * A small reStructuredText reader: enough of docutils and Sphinx to find sections, code
 * (code-block directives, `::` literal blocks, doctests) and prose, flattened into the same
 * blocks as markdown (see blocks.ts).
 */
import { assembleSnippets, normalizeLanguage, type Block, type CodeBlock, type ProseBlock } from './blocks.js'
import { guessLanguage } from './guess-language.js'
import {
  MAX_INCLUDE_DEPTH,
  dedentLines,
  languageOfFile,
  includeCandidates,
  readInclude,
  selectBetween,
  selectLines,
  selectPyObject,
  type DirectiveAt,
  type Selected,
} from './includes.js'
import type { ParseContext, ParsedSnippet, SourceDocument } from './types.js'
import { append, minOf } from '../text/arrays.js'

/** The blocks of a reStructuredText fragment (MyST's `{eval-rst}` fences). */
export function rstBlocks(text: string, path: string, context: ParseContext = {}): Block[] {
  const lines = text.split('\n')
  return new RstReader(path, context, lines).read(lines)
}

export function parseRst(doc: SourceDocument, context: ParseContext = {}): ParsedSnippet[] {
  const lines = doc.text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n')
  const blocks = new RstReader(doc.path, context, lines).read(lines)
  return assembleSnippets(blocks, { path: doc.path, anchors: 'docutils' })
}

const CODE_DIRECTIVES = new Set(['code-block', 'code', 'sourcecode', 'code-tab', 'code-cell'])
/** Directives whose body is Python by definition. */
const PYTHON_DIRECTIVES = new Set(['doctest', 'testcode', 'ipython', 'jupyter-execute', 'click:example'])
/**
 * Directives whose body is not content a reader studies (navigation, layout, media, generated
 * output). Any other directive, a project's own included (`.. confval::`, `.. fixture::`), shows
 * its argument and body.
 */
const NON_CONTENT_DIRECTIVES = new Set([
  'toctree', 'raw', 'image', 'figure', 'contents', 'index', 'meta', 'graphviz', 'plot', 'currentmodule',
  'sectionauthor', 'moduleauthor', 'codeauthor', 'tabularcolumns', 'include-fragment', 'click:run', 'testsetup', 'testcleanup',
  'testoutput', 'spelling:word-list', 'highlight', 'default-role', 'role', 'sectnum', 'header', 'footer', 'target-notes',
  'replace', 'unicode', 'date', 'class', 'title', 'rst-class', 'cssclass', 'iframe', 'youtube', 'video', 'mermaid',
  'program', 'productionlist',
])
/**
 * Sphinx autodoc and its kin: their content is the docstrings of the code, which only running
 * Sphinx (importing the package) renders. The extraction report names them; generate the API from
 * the source instead (`generateDocs`).
 */
const SPHINX_AUTO_DIRECTIVES = /^(?:auto(?:module|class|function|method|attribute|data|exception|property|decorator|summary|pydantic_\w+)|click|typer|argparse|autoprogram|jinja|automodapi|autoapi\w*)$/
const ADMONITIONS: Record<string, string> = {
  note: 'Note',
  warning: 'Warning',
  tip: 'Tip',
  hint: 'Hint',
  important: 'Important',
  caution: 'Caution',
  danger: 'Danger',
  attention: 'Attention',
  error: 'Error',
  seealso: 'See also',
  todo: 'Todo',
}
const VERSION_NOTES: Record<string, string> = {
  versionadded: 'New in version',
  versionchanged: 'Changed in version',
  deprecated: 'Deprecated since version',
}
/** Directives that wrap other content under an optional title. */
const CONTAINERS = new Set(['container', 'only', 'topic', 'sidebar', 'card', 'admonition'])
/** One tab of a tab set: its label names the tab, not the content, so only the body is read. */
const TAB_ITEMS = new Set(['tab', 'group-tab', 'tab-item'])
/** Tab sets whose code blocks are alternatives of one example. */
const TAB_SETS = new Set(['tabs', 'tab-set', 'code-tabs'])
/** Sphinx object descriptions (`.. function:: name(args)`): the signature, then its docs. */
const OBJECT_DIRECTIVE = /^(?:\w+:)?(?:function|class|method|attribute|data|exception|decorator|staticmethod|classmethod|property|module|member|type|macro|var|const|option|envvar)$/
/** Roles whose text is prose, not code (cross-references to documents, terms, labels). */
const PROSE_ROLES = new Set(['ref', 'doc', 'term', 'abbr', 'numref', 'download', 'guilabel', 'menuselection', 'kbd', 'dfn', 'sup', 'sub', 'emphasis', 'strong', 'title-reference'])

const ADORNMENT = /^([!-/:-@[-`{-~])\1{2,}\s*$/
const DIRECTIVE = /^\.\.\s+([\w:.-]+)::(?:\s+(.*))?$/
const BULLET = /^([-*+•])\s+/
const ENUMERATOR = /^(\d+|#|[a-zA-Z])[.)]\s+|^\((\d+|#|[a-zA-Z])\)\s+/
const FIELD = /^:([^:]+):(?:\s+|$)/

function indentOf(line: string): number {
  return /^\s*/.exec(line)![0].length
}

function isBlank(line: string | undefined): boolean {
  return line === undefined || line.trim() === ''
}

/** Removes the common indentation of the non-blank lines. */
function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => !isBlank(line)).map(indentOf)
  const common = minOf(indents, 0)
  return lines.map((line) => line.slice(Math.min(common, indentOf(line))))
}

function trimBlankEdges(lines: string[]): string[] {
  let start = 0
  let end = lines.length
  while (start < end && isBlank(lines[start])) start++
  while (end > start && isBlank(lines[end - 1])) end--
  return lines.slice(start, end)
}

type Mode = 'markdown' | 'plain'

/**
 * Directives and block quotes nest a few levels deep in real docs; deeper content is kept as
 * plain prose, so the reader never recurses as deep as its input goes.
 */
const MAX_NESTING = 16

/**
 * Section levels come from the order in which adornment styles first appear, and
 * `.. highlight::` sets the language of later literal blocks; both hold for the whole document,
 * so one reader carries them through nested directive bodies.
 */
class RstReader {
  private readonly styles: string[] = []
  private highlight: string | undefined
  private depth = 0
  /** How many directive bodies and block quotes enclose the lines being read. */
  private nesting = 0

  constructor(
    private readonly path: string,
    private readonly context: ParseContext,
    /** The page's own lines, to say where its include directives stand. */
    private readonly pageLines: readonly string[],
  ) {}

  /** A `::` block's language: `.. highlight::`, else the Sphinx project's default, else a guess. */
  private literalLanguage(code: string[]): string {
    return this.highlight ?? this.context.literalLanguage ?? guessLanguage(dedent(code).join('\n'))
  }

  read(lines: string[]): Block[] {
    if (this.nesting >= MAX_NESTING) {
      const text = dedent(trimBlankEdges(lines)).join('\n')
      return prose(text, text)
    }
    this.nesting++
    try {
      const blocks: Block[] = []
      let i = 0
      while (i < lines.length) {
        if (isBlank(lines[i])) {
          i++
          continue
        }
        const step = this.title(lines, i) ?? this.directive(lines, i) ?? this.indented(lines, i) ?? this.paragraph(lines, i)
        append(blocks, step.blocks)
        i = step.next
      }
      return blocks
    } finally {
      this.nesting--
    }
  }

  private title(lines: string[], i: number): Step | undefined {
    const [first, second, third] = [lines[i], lines[i + 1], lines[i + 2]]
    const over = ADORNMENT.exec(first)
    if (over && !isBlank(second) && third !== undefined && ADORNMENT.exec(third)?.[1] === over[1]) {
      return { blocks: [this.heading(second, `${over[1]}/over`)], next: i + 3 }
    }
    const under = second === undefined ? null : ADORNMENT.exec(second)
    if (under && indentOf(first) === 0 && !ADORNMENT.test(first)) {
      return { blocks: [this.heading(first, under[1])], next: i + 2 }
    }
    if (over && isBlank(second)) return { blocks: [], next: i + 1 }
    return undefined
  }

  private heading(text: string, style: string): Block {
    if (!this.styles.includes(style)) this.styles.push(style)
    return { kind: 'heading', depth: this.styles.indexOf(style) + 1, text: inline(text.trim(), 'plain') }
  }

  /** Explicit markup (`.. `): directives, comments, targets, substitutions and footnotes. */
  private directive(lines: string[], i: number): Step | undefined {
    if (!/^\.\.(\s|$)/.test(lines[i])) return undefined
    const next = blockEnd(lines, i + 1, indentOf(lines[i]))
    const match = DIRECTIVE.exec(lines[i].trim())
    if (!match) return { blocks: [], next }
    const name = match[1].toLowerCase()
    const argument = (match[2] ?? '').trim()
    const { options, body } = directiveContent(lines.slice(i + 1, next))
    return { blocks: this.directiveBlocks(name, argument, options, body), next }
  }

  private directiveBlocks(name: string, argument: string, options: Map<string, string>, body: string[]): Block[] {
    if (name === 'highlight') {
      this.highlight = normalizeLanguage(argument)
      return []
    }
    if (CODE_DIRECTIVES.has(name)) {
      // sphinx-tabs puts a label after the language (`.. code-tab:: bash pip`).
      const [language, ...label] = argument.split(/\s+/)
      const title = options.get('caption') ?? (label.length > 0 ? label.join(' ') : undefined)
      return codeBlocks(normalizeLanguage(language || this.highlight), body, title)
    }
    if (PYTHON_DIRECTIVES.has(name)) return codeBlocks('python', body, options.get('caption'))
    if (name === 'literalinclude') return this.literalInclude(argument, options)
    if (name === 'include') return this.include(argument, options)
    if (TAB_SETS.has(name)) return groupTabs(this.read(body))
    if (TAB_ITEMS.has(name)) return this.read(body)
    if (name in ADMONITIONS) return labelled(ADMONITIONS[name], [argument, ...body], this)
    if (name in VERSION_NOTES) return labelled(`${VERSION_NOTES[name]} ${argument}`, body, this)
    if (name === 'rubric') return prose(inline(argument, 'markdown'), inline(argument, 'plain'))
    if (CONTAINERS.has(name)) return [...(argument ? prose(inline(argument, 'markdown'), inline(argument, 'plain')) : []), ...this.read(body)]
    if (OBJECT_DIRECTIVE.test(name) && argument !== '') return [...prose('`' + argument + '`', argument, false), ...this.read(body)]
    if (SPHINX_AUTO_DIRECTIVES.test(name)) {
      const opener = `${name}::`
      const written = this.pageLines.findIndex((line) => line.includes(opener) && /^\s*\.\.\s/.test(line) && line.includes(argument))
      this.context.notRendered?.({ line: written + 1, directive: `.. ${name}:: ${argument}`.trim() })
      // autosummary's body is a list of names, not prose; the others may add text of their own.
      return name === 'autosummary' ? [] : this.read(body)
    }
    if (NON_CONTENT_DIRECTIVES.has(name) || body.length === 0) return []
    return [...(argument ? prose(`\`${argument}\``, argument, false) : []), ...this.read(body)]
  }

  /** An indented block with no `::` before it is a block quote: its content reads as prose. */
  private indented(lines: string[], i: number): Step | undefined {
    if (indentOf(lines[i]) === 0) return undefined
    const next = blockEnd(lines, i, 0)
    return { blocks: this.read(dedent(lines.slice(i, next))), next }
  }

  private paragraph(lines: string[], i: number): Step {
    let end = i
    while (end < lines.length && !isBlank(lines[end])) end++
    const paragraph = lines.slice(i, end)
    if (paragraph[0].trimStart().startsWith('>>>')) return { blocks: codeBlocks('python', paragraph), next: end }
    const last = paragraph[paragraph.length - 1].trimEnd()
    if (!last.endsWith('::')) return { blocks: paragraphBlocks(paragraph), next: end }
    paragraph[paragraph.length - 1] = literalIntro(last)
    const literal = this.literal(lines, end, indentOf(paragraph[0]))
    return { blocks: [...paragraphBlocks(paragraph), ...literal.blocks], next: literal.next }
  }

  /** The indented block after a `::` paragraph, highlighted as `.. highlight::` said or as text. */
  private literal(lines: string[], start: number, baseIndent: number): Step {
    let i = start
    while (i < lines.length && isBlank(lines[i])) i++
    if (i >= lines.length || indentOf(lines[i]) <= baseIndent) return { blocks: [], next: i }
    const next = blockEnd(lines, i, baseIndent)
    const body = lines.slice(i, next)
    const doctest = dedent(body).find((line) => !isBlank(line))?.startsWith('>>>') === true
    return { blocks: codeBlocks(doctest ? 'python' : this.literalLanguage(body), body), next }
  }

  /**
   * Where a directive naming `reference` stands: the page and the line of its first mention (0
   * inside an included part, whose lines are not the page's).
   */
  private at(reference: string): DirectiveAt {
    const line = this.pageLines.findIndex((text) => /^\s*\.\.\s+[\w-]*include::/.test(text) && text.includes(reference))
    return { page: this.path, line: line + 1 }
  }

  /** `.. literalinclude:: path` with Sphinx's selections (`:lines:`, `:pyobject:`, start/end markers, `:dedent:`). */
  private literalInclude(reference: string, options: Map<string, string>): Block[] {
    if (!this.context.includes) return []
    const select = (whole: string, path: string): Selected => {
      const object = options.get('pyobject')
      const text = object ? selectPyObject(whole, object) : whole
      if (text === undefined) return { problem: `no Python object ${object} in ${path}` }
      const between = selectBetween(text, { startAfter: options.get('start-after'), startAt: options.get('start-at'), endBefore: options.get('end-before'), endAt: options.get('end-at') })
      const lines = options.get('lines')
      return lines ? selectLines(between, lines) : between
    }
    const found = readInclude(this.context.includes, this.at(reference), reference, includeCandidates(this.path, reference, this.context.siteRoots), select)
    if (!found) return []
    let code = found.text.split('\n')
    const dedentBy = options.get('dedent')
    code = dedentBy !== undefined && /^\d+$/.test(dedentBy) ? code.map((line) => line.slice(Math.min(Number(dedentBy), /^\s*/.exec(line)![0].length))) : dedentLines(code)
    const language = normalizeLanguage(options.get('language') ?? languageOfFile(found.path))
    return codeBlocks(language, code, options.get('caption')).map((block) => ({ ...block, includes: [found.path] }))
  }

  /** `.. include:: part.rst` reads the part in place; with `:literal:` or `:code:` it is code. */
  private include(reference: string, options: Map<string, string>): Block[] {
    if (!this.context.includes) return []
    // Sphinx's `<name>` form names a docutils standard file, not a repository file.
    if (/^<.*>$/.test(reference)) return []
    const literal = options.has('literal') || options.has('code')
    const select = (text: string): Selected =>
      !literal && this.depth + 1 >= MAX_INCLUDE_DEPTH
        ? { problem: `includes nest deeper than ${MAX_INCLUDE_DEPTH}; this file is not read` }
        : selectBetween(text, { startAfter: options.get('start-after'), endBefore: options.get('end-before') })
    const found = readInclude(this.context.includes, this.at(reference), reference, includeCandidates(this.path, reference, this.context.siteRoots), select)
    if (!found) return []
    const text = found.text
    if (literal) {
      const language = normalizeLanguage(options.get('code') || languageOfFile(found.path))
      return codeBlocks(language, text.split('\n')).map((block) => ({ ...block, includes: [found.path] }))
    }
    this.depth++
    try {
      return this.read(text.split('\n'))
    } finally {
      this.depth--
    }
  }
}

interface Step {
  blocks: Block[]
  next: number
}

/** Index of the first non-blank line at or left of `indent`: where an indented body ends. */
function blockEnd(lines: string[], start: number, indent: number): number {
  let i = start
  while (i < lines.length && (isBlank(lines[i]) || indentOf(lines[i]) > indent)) i++
  return i
}

function directiveContent(lines: string[]): { options: Map<string, string>; body: string[] } {
  const options = new Map<string, string>()
  let i = 0
  for (; i < lines.length; i++) {
    const option = /^\s+:([\w-]+):\s*(.*)$/.exec(lines[i])
    if (!option) break
    options.set(option[1], option[2].trim())
  }
  return { options, body: trimBlankEdges(dedent(lines.slice(i))) }
}

/** "Example::" keeps "Example:", "Text ::" keeps "Text", a lone "::" leaves nothing. */
function literalIntro(line: string): string {
  if (line.trim() === '::') return ''
  if (/\s::$/.test(line)) return line.replace(/\s+::$/, '')
  return line.slice(0, -1)
}

function codeBlocks(language: string, body: string[], caption?: string): Block[] {
  const code = trimBlankEdges(dedent(body)).join('\n')
  if (code.trim() === '') return []
  const block: CodeBlock = { kind: 'code', language, code }
  return [caption ? { ...block, title: inline(caption, 'plain') } : block]
}

function groupTabs(blocks: Block[]): Block[] {
  const codes = blocks.filter((block): block is CodeBlock => block.kind === 'code')
  const rest = blocks
    .filter((block) => block.kind !== 'code')
    .map((block) => (block.kind === 'prose' ? { ...block, intro: false } : block))
  const group: Block[] = codes.length > 0 ? [{ kind: 'codeGroup', codes: codes.map(({ language, code }) => ({ language, code })) }] : []
  return [...group, ...rest]
}

/**
 * An admonition or version note: its body, with the label in front of the first prose. It is an
 * aside, so it never serves as the description of the code after it.
 */
function labelled(label: string, body: string[], reader: RstReader): Block[] {
  const blocks = reader.read(trimBlankEdges(body)).map((block) => (block.kind === 'prose' ? { ...block, intro: false } : block))
  const first = blocks.findIndex((block) => block.kind === 'prose')
  if (first === -1) return [...prose(label, label, false), ...blocks]
  const head = blocks[first] as ProseBlock
  blocks[first] = { ...head, markdown: `${label}: ${head.markdown}`, plain: `${label}: ${head.plain}` }
  return blocks
}

function prose(markdown: string, plain: string, intro = true): ProseBlock[] {
  if (!/[\p{L}\p{N}]/u.test(markdown)) return []
  return [{ kind: 'prose', markdown, plain, intro }]
}

function paragraphBlocks(lines: string[]): Block[] {
  const kept = lines.filter((line) => !isBlank(line))
  if (kept.length === 0) return []
  if (isTable(kept)) {
    const table = dedent(kept).join('\n')
    return prose(inline(table, 'markdown'), inline(table, 'plain'), false)
  }
  return prose(paragraphText(kept, 'markdown'), paragraphText(kept, 'plain'))
}

function isTable(lines: string[]): boolean {
  const first = lines[0].trim()
  return /^\+[-=+]+\+$/.test(first) || /^=+(\s+=+)+$/.test(first)
}

/** Lists and field lists keep one line per item; a definition list reads "term: definition". */
function paragraphText(lines: string[], mode: Mode): string {
  const flat = dedent(lines)
  const items = splitItems(flat)
  if (items.length > 0) return items.map((item) => inline(item, mode)).join('\n')
  const [first, ...rest] = flat
  const text = rest.length > 0 && indentOf(rest[0]) > 0 ? `${first.trim()}: ${joinLines(rest)}` : joinLines(flat)
  return inline(text, mode)
}

/** Joins wrapped lines into one, dropping the double spaces after full stops of typewriter style. */
function joinLines(lines: string[]): string {
  return lines.map((line) => line.trim()).join(' ').replace(/\s{2,}/g, ' ')
}

/** Splits bullet, enumerated and field list lines into items; [] when the paragraph is no list. */
function splitItems(lines: string[]): string[] {
  if (!isItemStart(lines[0])) return []
  const items: string[][] = []
  for (const line of lines) {
    if (indentOf(line) === 0 && isItemStart(line)) items.push([line])
    else items[items.length - 1].push(line)
  }
  return items.map((item) => itemText(joinLines(item)))
}

function isItemStart(line: string): boolean {
  return BULLET.test(line) || ENUMERATOR.test(line) || FIELD.test(line)
}

function itemText(item: string): string {
  const field = FIELD.exec(item)
  if (field) return `- ${field[1].trim()}: ${item.slice(field[0].length)}`
  const enumerated = ENUMERATOR.exec(item)
  if (enumerated) {
    const number = enumerated[1] ?? enumerated[2]
    return `${/^\d+$/.test(number) ? number : '1'}. ${item.slice(enumerated[0].length)}`
  }
  return `- ${item.replace(BULLET, '')}`
}

const INLINE = /``(.+?)``|:([\w:+.-]+):`([^`]+)`|`([^`]+)`(__?)?|\*\*(.+?)\*\*|\*([^\s*][^*]*?)\*|\|([^|\s][^|]*?)\|_{0,2}|\s?\[(?:\d+|#[\w-]*|\*)\]_/g

/** Inline markup keeps its text: ``literal`` and code roles stay code in markdown mode. */
function inline(text: string, mode: Mode): string {
  const code = (value: string): string => (mode === 'markdown' ? '`' + value + '`' : value)
  return text
    .replace(INLINE, (_whole, literal?: string, role?: string, roleText?: string, interpreted?: string, reference?: string, strong?: string, emphasis?: string, substitution?: string) => {
      if (literal !== undefined) return code(literal)
      if (role !== undefined && roleText !== undefined) return roleValue(role, roleText, code)
      if (interpreted !== undefined) return reference !== undefined ? referenceText(interpreted) : code(interpreted)
      if (strong !== undefined) return strong
      if (emphasis !== undefined) return emphasis
      if (substitution !== undefined) return substitution
      return ''
    })
    .replace(/(?<![\w])([A-Za-z][\w-]*[A-Za-z0-9])__?(?=[\s.,;:!?)]|$)/g, '$1')
}

/** `title <target>` shows the title; a `~` prefix shows only the last dotted name, as Sphinx does. */
function roleValue(role: string, text: string, code: (value: string) => string): string {
  const titled = /^(.*?)\s*<[^<>]+>$/s.exec(text)
  const shown = titled && titled[1] !== '' ? titled[1] : text.replace(/^[!~]/, '')
  const value = text.startsWith('~') && !titled ? (shown.split('.').pop() ?? shown) : shown
  const name = role.replace(/^\w+:(?=\w)/, '')
  if (name === 'rfc' || name === 'pep') return `${name.toUpperCase()} ${value}`
  return PROSE_ROLES.has(name) ? value : code(value)
}

function referenceText(text: string): string {
  const titled = /^(.*?)\s*<[^<>]+>$/s.exec(text)
  return titled && titled[1] !== '' ? titled[1] : text
}
