/**
 * The format-neutral middle of every parser: a reader turns its format into a flat stream of
 * blocks (headings, prose, code), and `assembleSnippets` turns that stream into snippets. Keeping
 * the snippet rules here means markdown, rst and notebooks title, describe and group code alike.
 */
import { splitByTokens } from '../text/tokens.js'
import { sluggerFor, type Slugger } from './anchors.js'
import type { AnchorStyle, CodeAlternative, ParsedCodeSnippet, ParsedSnippet } from './types.js'

export interface HeadingBlock {
  kind: 'heading'
  depth: number
  text: string
  /** An explicit anchor (`{#id}`), used instead of the slug of the text. */
  id?: string
  /** A heading the page gives no anchor (raw HTML without an `id`): links go to the section it is in. */
  keepAnchor?: true
}

export interface ProseBlock {
  kind: 'prose'
  /** Markdown-ish text for info snippets. */
  markdown: string
  /** The same prose as plain text, for code descriptions. */
  plain: string
  /**
   * False for prose that cannot introduce a code block (a table, text inside a tab). It also
   * ends the run of intro paragraphs before it, since a description is what comes right before.
   */
  intro: boolean
}

export interface CodeBlock {
  kind: 'code'
  language: string
  code: string
  /** From a `title=`/`filename=` meta, an rst `:caption:` or a sphinx-tabs label. */
  title?: string
  /** Blocks of one tab set share this id: they are alternatives of one example. */
  group?: string
  /** Repository files the code was included from. */
  includes?: string[]
}

/** Alternatives the source itself groups (tabs, code groups). */
export interface CodeGroupBlock {
  kind: 'codeGroup'
  codes: CodeAlternative[]
  includes?: string[]
}

export type Block = HeadingBlock | ProseBlock | CodeBlock | CodeGroupBlock

export interface AssembleOptions {
  path: string
  /** A title the document declares outside its headings (front matter). */
  declaredTitle?: string
  /** How the page's site names heading anchors (anchors.ts); GitHub's by default. */
  anchors?: AnchorStyle
}

/** Info snippets are split at this size so each stays a focused retrieval unit. */
const INFO_MAX_TOKENS = 700
/** Sections with less prose than this say nothing a code snippet's description does not. */
const MIN_INFO_WORDS = 15
/** A description is the intro to a block, not the whole section before it. */
const MAX_DESCRIPTION_PARAGRAPHS = 3

const LANGUAGE_ALIASES: Record<string, string> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  node: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  'shell-session': 'bash',
  shellsession: 'bash',
  terminal: 'bash',
  py: 'python',
  py3: 'python',
  python3: 'python',
  pycon: 'python',
  ipython: 'python',
  ipython3: 'python',
  yml: 'yaml',
  rb: 'ruby',
  rs: 'rust',
  golang: 'go',
  kt: 'kotlin',
  cs: 'csharp',
  'c#': 'csharp',
  'c++': 'cpp',
  md: 'markdown',
  ps1: 'powershell',
  pwsh: 'powershell',
  txt: 'text',
  plaintext: 'text',
  plain: 'text',
  none: 'text',
  default: 'text',
}

/** Lower-cases a fence or directive language, drops line-highlight suffixes, maps aliases. */
export function normalizeLanguage(raw: string | null | undefined): string {
  const base = (raw ?? '')
    .trim()
    .toLowerCase()
    .replace(/\{.*$/, '')
    .replace(/:.*$/, '')
    // rustdoc and mdBook attributes: ```rust,ignore, ```rust,editable.
    .replace(/,.*$/, '')
  if (base === '') return 'text'
  return LANGUAGE_ALIASES[base] ?? base
}

/** Shiki's `[!code ++]`, `[!code highlight]`... in any comment style, at the end of a line. */
const SHIKI_MARKER = /\s*(?:\/\/|#|--|<!--|\/\*|;)\s*\[!code\s[^\]]*\]\s*(?:-->|\*\/)?\s*$/
/** MkDocs Material's annotation markers: `# (1)!` or `// (2)` ending a line. */
const ANNOTATION_MARKER = /\s*(?:#|\/\/)\s*\(\d+\)!?\s*$/
/** twoslash: queries (`// ^?`), error carets, and its compiler directives. */
const TWOSLASH_LINE = /^\s*\/\/\s*(?:\^[?|]\s*$|\^+\s*$|@(?:errors|noErrors|filename|log|warn|error|annotate|noStaticSemanticInfo|showEmit|showEmittedFile|jsx|module|target|strict\w*|esModuleInterop|lib|types)\b)/
const TWOSLASH_CUT = /^\s*\/\/\s*---cut(?:-before)?---\s*$/
const TWOSLASH_CUT_AFTER = /^\s*\/\/\s*---cut-after---\s*$/

/**
 * Normalises a code body as its reader sees it rendered: rendering annotations removed (Shiki
 * markers, twoslash set-up before `---cut---` and its queries, Material's `(1)!` markers), no
 * leading or trailing blank lines, no trailing spaces; indentation kept.
 */
function cleanCode(code: string): string {
  let lines = code.split('\n')
  const cut = lines.findLastIndex((line) => TWOSLASH_CUT.test(line))
  if (cut !== -1) lines = lines.slice(cut + 1)
  const cutAfter = lines.findIndex((line) => TWOSLASH_CUT_AFTER.test(line))
  if (cutAfter !== -1) lines = lines.slice(0, cutAfter)
  return lines
    .filter((line) => !TWOSLASH_LINE.test(line))
    .map((line) => line.replace(SHIKI_MARKER, '').replace(ANNOTATION_MARKER, '').trimEnd())
    .join('\n')
    .replace(/^\n+/, '')
    .trimEnd()
}

function wordCount(text: string): number {
  return text.match(/\S+/g)?.length ?? 0
}

/**
 * The file name without directory and extension, the title of last resort; an index or README
 * page is named after its directory instead.
 */
function fileTitle(path: string): string {
  const parts = path.split('/').filter((part) => part !== '')
  const name = (parts.pop() ?? path).replace(/\.[^.]+$/, '')
  const parent = parts.pop()
  return /^(index|readme)$/i.test(name) && parent !== undefined ? parent : name
}

/**
 * Adjacent blocks are alternatives when they show one thing in different languages (js and ts)
 * or under distinct labels (npm, yarn, pnpm). A run stays of one kind: a python block after a
 * group of labelled bash blocks starts a new snippet.
 */
function isAlternative(group: CodeBlock[], next: CodeBlock): boolean {
  // Tabs the source declares are alternatives of each other and of nothing else.
  if (next.group !== undefined || group[0].group !== undefined) return group.every((block) => block.group === next.group)
  const languages = new Set(group.map((block) => block.language))
  if (languages.size === group.length && !languages.has(next.language)) return true
  const labels = new Set(group.map((block) => block.title))
  return (
    next.title !== undefined &&
    !looksLikeFileName(next.title) &&
    !labels.has(undefined) &&
    !labels.has(next.title) &&
    group.every((block) => block.language === next.language)
  )
}

/** Consecutive blocks titled with file names are parts of one program, not alternatives. */
function looksLikeFileName(title: string): boolean {
  return /[./\\]/.test(title)
}

export function assembleSnippets(blocks: Block[], options: AssembleOptions): ParsedSnippet[] {
  const pageTitle = options.declaredTitle ?? firstTopHeading(blocks) ?? fileTitle(options.path)
  return new SnippetAssembler(pageTitle, sluggerFor(options.anchors ?? 'github')).run(blocks)
}

function firstTopHeading(blocks: Block[]): string | undefined {
  const top = blocks.find((block): block is HeadingBlock => block.kind === 'heading' && block.depth === 1)
  return top?.text
}

/** Walks the block stream once, tracking the heading trail, the section's prose and open code runs. */
class SnippetAssembler {
  private readonly snippets: ParsedSnippet[] = []
  private trail: HeadingBlock[] = []
  private anchor = ''
  /** The section's prose; `used` once a code snippet took it as its description. */
  private sectionProse: Array<{ markdown: string; used: boolean }> = []
  private introBuffer: Array<{ plain: string; entry?: { used: boolean } }> = []
  private lastDescription = ''
  private openRun: CodeBlock[] = []

  constructor(
    private readonly pageTitle: string,
    private readonly slug: Slugger,
  ) {}

  run(blocks: Block[]): ParsedSnippet[] {
    for (const block of blocks) this.accept(block)
    this.flushRun()
    this.flushSection()
    return this.snippets
  }

  private accept(block: Block): void {
    switch (block.kind) {
      case 'heading':
        return this.enterHeading(block)
      case 'prose':
        return this.addProse(block)
      case 'code':
        return this.addCode(block)
      case 'codeGroup':
        this.flushRun()
        return this.emitCode(this.headingTitle(), this.takeDescription(), block.codes, block.includes)
    }
  }

  private enterHeading(heading: HeadingBlock): void {
    this.flushRun()
    this.flushSection()
    this.trail = [...this.trail.filter((open) => open.depth < heading.depth), heading]
    if (!heading.keepAnchor) this.anchor = heading.id ?? this.slug(heading.text)
    this.introBuffer = []
    this.lastDescription = ''
  }

  private addProse(prose: ProseBlock): void {
    this.flushRun()
    const entry = prose.markdown.trim() !== '' ? { markdown: prose.markdown, used: false } : undefined
    if (entry) this.sectionProse.push(entry)
    if (!prose.intro) this.introBuffer = []
    else if (prose.plain.trim() !== '') this.introBuffer.push({ plain: prose.plain.trim(), entry })
  }

  private addCode(code: CodeBlock): void {
    if (code.code.trim() === '') return
    if (this.openRun.length > 0 && !isAlternative(this.openRun, code)) this.flushRun()
    this.openRun.push(code)
  }

  private flushRun(): void {
    const run = this.openRun
    if (run.length === 0) return
    this.openRun = []
    const title = run.length === 1 && run[0].title !== undefined && run[0].includes === undefined ? run[0].title : this.headingTitle()
    const codes = run.map(({ language, code }) => ({ language, code }))
    const includes = [...new Set(run.flatMap((block) => block.includes ?? []))]
    this.emitCode(title, this.takeDescription(), codes, includes)
  }

  /**
   * Uses the prose since the last code block; blocks without new prose share the previous intro.
   * Prose taken as a description leaves the section's info snippet: retrieval would otherwise
   * return the same sentences twice, once with the code and once without.
   */
  private takeDescription(): string {
    if (this.introBuffer.length > 0) {
      const intro = this.introBuffer.slice(-MAX_DESCRIPTION_PARAGRAPHS)
      for (const paragraph of intro) if (paragraph.entry) paragraph.entry.used = true
      this.lastDescription = intro.map((paragraph) => paragraph.plain).join('\n\n')
      this.introBuffer = []
    }
    return this.lastDescription
  }

  private emitCode(title: string, description: string, codes: CodeAlternative[], includes: string[] = []): void {
    const codeList = codes
      .map(({ language, code }) => ({ language, code: cleanCode(code) }))
      .filter(({ code }) => code !== '')
    if (codeList.length === 0) return
    const snippet: ParsedCodeSnippet = {
      kind: 'code',
      title,
      description,
      breadcrumb: this.breadcrumb(),
      pageTitle: this.pageTitle,
      anchor: this.anchor,
      codeList,
      ...(includes.length > 0 ? { includes } : {}),
    }
    this.snippets.push(snippet)
  }

  private flushSection(): void {
    const content = this.sectionProse
      .filter((entry) => !entry.used)
      .map((entry) => entry.markdown)
      .join('\n\n')
      .trim()
    this.sectionProse = []
    if (wordCount(content) < MIN_INFO_WORDS) return
    for (const part of splitByTokens(content, INFO_MAX_TOKENS)) {
      this.snippets.push({
        kind: 'info',
        breadcrumb: this.breadcrumb(),
        pageTitle: this.pageTitle,
        anchor: this.anchor,
        content: part,
      })
    }
  }

  private headingTitle(): string {
    return this.trail.at(-1)?.text ?? this.pageTitle
  }

  private breadcrumb(): string {
    return this.trail.map((heading) => heading.text).join(' > ')
  }
}
